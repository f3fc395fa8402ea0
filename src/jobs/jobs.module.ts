import {
  BeforeApplicationShutdown,
  Global,
  Inject,
  Injectable,
  Logger,
  Module,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { BullMqJobQueue } from './bullmq-job-queue';
import { InProcessJobQueue } from './in-process-job-queue';
import { JOB_QUEUE, JobQueue } from './job-queue';

/**
 * Starts the queue once the app has booted and closes it on shutdown (needs
 * `app.enableShutdownHooks()` for signals). Features register their handlers in their
 * constructor or `onModuleInit`; registering later also works (the handler starts at once).
 */
@Injectable()
export class JobQueueLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('Jobs');

  constructor(@Inject(JOB_QUEUE) private readonly jobs: JobQueue) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.jobs.start();
    this.logger.log(`Job queue started (${this.jobs.kind})`);
  }

  /**
   * Close before any `onApplicationShutdown` hook runs: running jobs may still need the database
   * or the mailer, which other modules release in their own `onApplicationShutdown`.
   */
  async beforeApplicationShutdown(): Promise<void> {
    await this.jobs.close();
  }

  /** close() is idempotent; this covers shutdown paths that skip the hook above. */
  async onApplicationShutdown(): Promise<void> {
    await this.jobs.close();
  }
}

@Global()
@Module({
  providers: [
    {
      provide: JOB_QUEUE,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): JobQueue =>
        config.redisUrl ? new BullMqJobQueue(config.redisUrl, config.redisPrefix) : new InProcessJobQueue(),
    },
    JobQueueLifecycle,
  ],
  exports: [JOB_QUEUE],
})
export class JobsModule {}
