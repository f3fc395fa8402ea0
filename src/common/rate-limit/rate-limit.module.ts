import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { MemoryRateLimiter } from './memory-rate-limiter';
import { RATE_LIMITER, RateLimiter } from './rate-limiter';
import { RedisRateLimiter } from './redis-rate-limiter';

@Injectable()
class RateLimiterCloser implements OnApplicationShutdown {
  constructor(@Inject(RATE_LIMITER) private readonly limiter: RateLimiter) {}

  async onApplicationShutdown(): Promise<void> {
    await this.limiter.close();
  }
}

/** RATE_LIMITER: Redis counters with REDIS_URL (keys under REDIS_PREFIX), memory otherwise. */
@Global()
@Module({
  providers: [
    {
      provide: RATE_LIMITER,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): RateLimiter =>
        config.redisUrl ? new RedisRateLimiter(config.redisUrl, config.redisPrefix) : new MemoryRateLimiter(),
    },
    RateLimiterCloser,
  ],
  exports: [RATE_LIMITER],
})
export class RateLimitModule {}
