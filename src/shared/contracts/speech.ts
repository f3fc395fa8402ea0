/**
 * Speech to text for the microphone where the browser has no speech recognition (Firefox): the
 * provider set in the Configuration tab ("Speech to text"), the public availability the chat page
 * and the widget read, and the transcription route's answer and limits.
 */
import { z } from 'zod';
import { EMBEDDING_PROVIDER_IDS, type EmbeddingProviderId } from '../catalog/providers';
import { AGENT_LIMITS, apiKey, apiVersion, url } from './config';
import { body, flag, oneOf, text } from './rules';

/** The providers: OpenAI, Azure OpenAI, and any server with OpenAI's /v1/audio/transcriptions (a local Whisper server). */
export const SPEECH_PROVIDER_IDS = EMBEDDING_PROVIDER_IDS;
export type SpeechProviderId = EmbeddingProviderId;

export const SPEECH_PROVIDER_LABELS: Readonly<Record<SpeechProviderId, string>> = Object.freeze({
  openai: 'OpenAI',
  azure: 'Azure OpenAI',
  'openai-compatible': 'OpenAI-compatible (a local Whisper server, vLLM, LocalAI)',
});

/** Models offered per provider, default first (an Azure deployment or a local server names its own). */
export const SPEECH_MODELS: Readonly<Record<SpeechProviderId, readonly string[]>> = Object.freeze({
  openai: ['whisper-1', 'gpt-4o-mini-transcribe', 'gpt-4o-transcribe'],
  azure: ['whisper', 'gpt-4o-mini-transcribe', 'gpt-4o-transcribe'],
  'openai-compatible': ['whisper-1', 'Systran/faster-whisper-small', 'whisper-large-v3'],
});

/** One recording: at most this long and this large (the microphone stops at the length). */
export const VOICE_LIMITS = Object.freeze({ maxSeconds: 60, maxBytes: 2 * 1024 * 1024 });

const provider = oneOf(SPEECH_PROVIDER_IDS as unknown as [SpeechProviderId, ...SpeechProviderId[]], `Provider must be one of ${SPEECH_PROVIDER_IDS.join(', ')}`);

/** GET|PUT /api/config/speech `data`: the settings (the key only masked). */
export const SpeechSettingsSchema = z
  .object({
    /** Off by default: without it the microphone is shown only where the browser recognises speech. */
    enabled: z.boolean(),
    provider: z.enum(SPEECH_PROVIDER_IDS),
    model: z.string(),
    /** OpenAI-compatible server address (or another OpenAI address). */
    baseUrl: z.string().nullable(),
    /** Azure resource endpoint. */
    endpoint: z.string().nullable(),
    apiVersion: z.string().nullable(),
    /** The key, masked (null: none stored, or stored but unreadable). */
    apiKey: z.string().nullable(),
    /** True when a key is stored that this server cannot decrypt (another APP_SECRET): enter it again. */
    keyUnreadable: z.boolean().optional(),
  })
  .meta({ id: 'SpeechSettings' });
export type SpeechSettings = z.infer<typeof SpeechSettingsSchema>;

/** PUT /api/config/speech: any subset of the fields. `apiKey`: absent, empty or the mask keeps the stored key; null removes it. */
export const SpeechSettingsUpdateSchema = body({
  enabled: flag('Speech to text').optional(),
  provider: provider.optional(),
  model: text('Speech model', AGENT_LIMITS.model, { required: true }).optional(),
  baseUrl: url('Base URL').optional(),
  endpoint: url('Endpoint').optional(),
  apiVersion: apiVersion.optional(),
  apiKey,
})
  .refine((value) => Object.values(value).some((v) => v !== undefined), 'Send at least one setting to change')
  .meta({ id: 'SpeechSettingsUpdate' });
export type SpeechSettingsUpdate = z.input<typeof SpeechSettingsUpdateSchema>;

/** GET /api/public/voice `data`: whether recordings can be transcribed here, and their limits. */
export const VoiceAvailabilitySchema = z
  .object({
    /** A speech-to-text provider is set: browsers without speech recognition may record and send audio. */
    transcription: z.boolean(),
    maxSeconds: z.number().int(),
    maxBytes: z.number().int(),
  })
  .meta({ id: 'VoiceAvailability' });
export type VoiceAvailability = z.infer<typeof VoiceAvailabilitySchema>;

/** POST /api/voice/transcriptions `data`. */
export const TranscriptionSchema = z
  .object({
    /** What was said (may be empty when nothing was heard). */
    text: z.string(),
    /** The recording's length as read from the file, in seconds (null when the file does not say). */
    seconds: z.number().nullable(),
  })
  .meta({ id: 'Transcription' });
export type Transcription = z.infer<typeof TranscriptionSchema>;

/** The messages the route and the client share. */
export const VOICE_MESSAGES = Object.freeze({
  notConfigured: 'Voice input is not available here: no speech-to-text provider is set.',
  tooLarge: `The recording is larger than ${VOICE_LIMITS.maxBytes / (1024 * 1024)} MB, the most one transcription takes.`,
  tooLong: (seconds: number) => `The recording is ${Math.round(seconds)} seconds long; at most ${VOICE_LIMITS.maxSeconds} seconds are transcribed.`,
  notAudio: 'The upload is not an audio recording: send WAV, WebM, Ogg, MP3, MP4/M4A or FLAC audio.',
  notMultipart: 'Send the recording as multipart/form-data, in the field "file".',
  empty: 'The recording is empty.',
});

/** POST /api/voice/transcriptions query: the language spoken, when known (an ISO 639-1 code; helps the provider). */
export const TranscriptionQuerySchema = z
  .object({
    language: z
      .string({ error: 'Language must be a two-letter code such as en' })
      .regex(/^[a-z]{2}$/, 'Language must be a two-letter code such as en')
      .optional(),
  })
  .meta({ id: 'TranscriptionQuery' });
export type TranscriptionQuery = z.output<typeof TranscriptionQuerySchema>;
