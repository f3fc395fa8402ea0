import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import type { Response } from 'express';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Public } from '../auth/public.decorator';
import { Contract } from '../common/contract';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { frameAncestorsOf, WidgetsService } from './widgets.service';

/** Where the iframe page's build lies inside the client directory (its own Vite build). */
export const WIDGET_FRAME_DIR = 'widget-frame';

const NOT_FOUND_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Chat not available</title>
<style>body{margin:0;font:15px/1.5 system-ui,sans-serif;color:#1f2937;background:#fff;display:flex;min-height:100vh;align-items:center;justify-content:center;text-align:center}main{padding:24px;max-width:320px}h1{font-size:18px;margin:0 0 8px}p{margin:0;color:#4b5563}</style>
</head><body><main><h1>This chat is not available</h1><p>The chat on this site could not be found. It may have been removed. Please contact the site's owner another way.</p></main></body></html>`;

/**
 * The page inside the widget's iframe: the built widget app, sent with
 * `Content-Security-Policy: frame-ancestors <the widget's allowed origins>`, so a browser refuses
 * to show it framed by any other site. An unknown or deleted widget gets a small 404 page that any
 * site may frame (it holds nothing), so the host page shows a message instead of a broken frame.
 */
@Public()
@Controller('widget')
export class WidgetPageController {
  private page: string | undefined;

  constructor(
    private readonly widgets: WidgetsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get(':id')
  @Contract({
    summary: "The page inside a widget's iframe",
    description: "Sent with Content-Security-Policy: frame-ancestors <the widget's allowed origins>; an unknown or deleted widget gets a 404 HTML page that any site may frame.",
    content: { 'text/html': { description: 'The chat page of the widget.' } },
    errors: [404],
  })
  async show(@Param('id') id: string, @Res() res: Response): Promise<void> {
    const row = await this.widgets.find(id);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'strict-origin-when-cross-origin');
    if (!row) {
      res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors *");
      res.status(404).type('html').send(NOT_FOUND_PAGE);
      return;
    }
    const page = this.readPage();
    if (!page) {
      res.status(503).type('text/plain').send('The widget page is not built: run "npm run build".');
      return;
    }
    res.setHeader('Content-Security-Policy', `frame-ancestors ${frameAncestorsOf(row)}`);
    res.status(200).type('html').send(page);
  }

  private readPage(): string | undefined {
    if (this.page) return this.page;
    const file = path.join(this.config.clientDir, WIDGET_FRAME_DIR, 'widget.html');
    if (!fs.existsSync(file)) return undefined;
    this.page = fs.readFileSync(file, 'utf8');
    return this.page;
  }
}
