/** Every TypeORM entity of the app; each feature adds its own here. */
import { UsageEvent } from '../analytics/usage-event.entity';
import { KnowledgeAttachment } from '../knowledge/knowledge-attachment.entity';
import { KnowledgeChunk } from '../knowledge/knowledge-chunk.entity';
import { KnowledgeItem } from '../knowledge/knowledge-item.entity';
import { Setting } from './setting.entity';

export const ENTITIES = [UsageEvent, Setting, KnowledgeItem, KnowledgeChunk, KnowledgeAttachment];
