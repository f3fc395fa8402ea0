import { Body, Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Public } from '../auth/public.decorator';
import { clientAddressOf } from '../common/client-address';
import { Contract } from '../common/contract';
import { originAllowed, PublicWidgetSchema, WidgetVisitorRequestSchema, WidgetVisitorSchema, type WidgetVisitorRequest } from '../shared/contracts/widgets';
import { toPublicWidget, WidgetsService } from './widgets.service';

/**
 * What the loader (on the host page, cross-origin, without cookies) and the iframe page read, and
 * the visitor tokens the iframe keeps. A browser call from an origin the widget does not allow is 403.
 */
@Public()
@Controller('api/public/widgets')
export class PublicWidgetsController {
  constructor(private readonly widgets: WidgetsService) {}

  @Get(':id')
  @Contract({
    summary: "A widget's launcher and chat settings (for the loader and the iframe)",
    description: 'Readable cross-origin (CORS) by the origins the widget allows; no cookie is read or set.',
    data: PublicWidgetSchema,
    errors: [403, 404],
  })
  async get(@Param('id') id: string, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    const row = await this.widgets.require(id);
    this.widgets.assertCaller(row, req.headers, clientAddressOf(req));
    const origin = req.headers.origin;
    if (origin && originAllowed(row.allowedOrigins, origin)) res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Vary', 'Origin');
    res.setHeader('Cache-Control', 'no-cache');
    return { success: true, data: toPublicWidget(row) };
  }

  @Post(':id/visitor')
  @Contract({
    summary: 'A visitor token for the iframe',
    description:
      'Keeps the token sent (or makes a new one); with an identity whose signature is valid (HMAC-SHA256 of the id with the widget secret, hex, or an HS256 JWT with `sub` = the id and `exp`), the identity\'s own token, the same on every device. A wrong or missing signature is ignored, or refused (403) when the widget requires verification. Send the token in the socket\'s auth (`visitorToken`) or the X-Visitor-Token header.',
    body: WidgetVisitorRequestSchema,
    data: WidgetVisitorSchema,
    errors: [403, 404],
  })
  async visitor(@Param('id') id: string, @Body() body: WidgetVisitorRequest, @Req() req: Request) {
    const row = await this.widgets.require(id);
    this.widgets.assertCaller(row, req.headers, clientAddressOf(req));
    return { success: true, data: await this.widgets.visitorToken(row, body) };
  }
}
