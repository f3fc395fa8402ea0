import { Module } from '@nestjs/common';
import { LlmService } from './llm.service';

/** The provider port (LlmService.stream) and its adapters; reads only APP_CONFIG. */
@Module({
  providers: [LlmService],
  exports: [LlmService],
})
export class LlmModule {}
