import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import * as path from 'node:path';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { AdminUsersService, DEFAULT_ADMIN_EMAIL } from './admin-users.service';

/**
 * At start: ADMIN_EMAIL (with ADMIN_PASSWORD / ADMIN_NAME) creates or updates that admin; with no
 * admin at all, admin@localhost is created with code sign-in and the log says how to sign in.
 */
@Injectable()
export class AdminBootstrapService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Admin');

  constructor(
    private readonly users: AdminUsersService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { adminEmail, adminPassword, adminName } = this.config;
    if (adminEmail) {
      const outcome = await this.users.upsertFromEnvironment(adminEmail, adminPassword, adminName);
      if (outcome !== 'unchanged') {
        const methods = adminPassword ? 'password or emailed code' : 'emailed code';
        this.logger.log(`Admin ${adminEmail} ${outcome} from ADMIN_EMAIL (signs in with ${methods})`);
      }
      return;
    }
    if (await this.users.ensureAnyAdmin()) {
      const where = this.config.smtpUrl
        ? 'the code is mailed through SMTP_URL, which cannot reach admin@localhost: set ADMIN_EMAIL to your address instead'
        : `the code is printed in this log and saved in ${path.join(this.config.dataDir, 'outbox')}/`;
      this.logger.warn(
        [
          `No administrator existed, so ${DEFAULT_ADMIN_EMAIL} was created (sign-in with an emailed one-time code).`,
          `  Sign in: open /admin (http://localhost:${this.config.port || 3000}/admin), enter ${DEFAULT_ADMIN_EMAIL}; ${where}.`,
          '  Then add your own admin: npm run admin -- add you@example.com --password',
          `  and remove the default one: npm run admin -- remove ${DEFAULT_ADMIN_EMAIL}`,
        ].join('\n'),
      );
    }
  }
}
