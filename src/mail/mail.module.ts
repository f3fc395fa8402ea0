import { Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import * as path from 'node:path';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { LogMailTransport } from './log-mail.transport';
import { MailOutbox } from './mail-outbox.entity';
import { MailOutboxService } from './mail-outbox.service';
import { MAIL_TRANSPORT, MailTransport } from './mail.types';
import { SmtpMailTransport } from './smtp-mail.transport';

@Injectable()
class MailTransportCloser implements OnApplicationShutdown {
  constructor(@Inject(MAIL_TRANSPORT) private readonly transport: MailTransport) {}

  async onApplicationShutdown(): Promise<void> {
    await this.transport.close();
  }
}

/** Mail: SMTP via SMTP_URL, otherwise the log transport (log + DATA_DIR/outbox/*.eml); sent from the outbox by a job. */
@Module({
  imports: [TypeOrmModule.forFeature([MailOutbox])],
  providers: [
    {
      provide: MAIL_TRANSPORT,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): MailTransport =>
        config.smtpUrl
          ? new SmtpMailTransport(config.smtpUrl, config.mailFrom)
          : new LogMailTransport(path.join(config.dataDir, 'outbox'), config.mailFrom),
    },
    MailTransportCloser,
    MailOutboxService,
  ],
  exports: [MailOutboxService, MAIL_TRANSPORT],
})
export class MailModule {}
