import { Module } from '@nestjs/common';
import { AnalyticsModule } from '../analytics/analytics.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { LimitsModule } from '../limits/limits.module';
import { WidgetModule } from '../widget/widget.module';
import { SpeechSettingsController } from './speech-settings.controller';
import { SpeechService } from './speech.service';
import { VoiceController } from './voice.controller';

/**
 * Speech to text for the microphone where the browser recognises no speech: the provider setting,
 * whether it is set (public), and the transcription route of the chat page and the widget.
 */
@Module({
  imports: [AnalyticsModule, ConversationsModule, LimitsModule, WidgetModule],
  controllers: [SpeechSettingsController, VoiceController],
  providers: [SpeechService],
})
export class SpeechModule {}
