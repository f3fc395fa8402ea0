/** Every TypeORM entity of the app; each feature adds its own here. */
import { Agent } from '../agents/agent.entity';
import { ReplyFeedback } from '../analytics/reply-feedback.entity';
import { UsageEvent } from '../analytics/usage-event.entity';
import { UsageHourlyLatency } from '../analytics/usage-hourly-latency.entity';
import { UsageHourly } from '../analytics/usage-hourly.entity';
import { AdminSession } from '../auth/admin-session.entity';
import { AdminUser } from '../auth/admin-user.entity';
import { OneTimeCode } from '../auth/one-time-code.entity';
import { SignInEvent } from '../auth/sign-in-event.entity';
import { KnowledgeAttachment } from '../knowledge/knowledge-attachment.entity';
import { KnowledgeChunk } from '../knowledge/knowledge-chunk.entity';
import { KnowledgeItem } from '../knowledge/knowledge-item.entity';
import { MailOutbox } from '../mail/mail-outbox.entity';
import { Setting } from './setting.entity';

export const ENTITIES = [
  UsageEvent,
  UsageHourly,
  UsageHourlyLatency,
  ReplyFeedback,
  Setting,
  KnowledgeItem,
  KnowledgeChunk,
  KnowledgeAttachment,
  AdminUser,
  AdminSession,
  OneTimeCode,
  MailOutbox,
  SignInEvent,
  Agent,
];
