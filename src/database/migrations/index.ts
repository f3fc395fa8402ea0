/** Migrations per dialect, in order. Each feature adds its pair (sqlite/ and postgres/). */
import { CorePostgres1732190000000 } from './postgres/1732190000000-core';
import { KnowledgePostgres1732190100000 } from './postgres/1732190100000-knowledge';
import { KnowledgeAttachmentsPostgres1732190300000 } from './postgres/1732190300000-knowledge-attachments';
import { CoreSqlite1732190000000 } from './sqlite/1732190000000-core';
import { KnowledgeSqlite1732190100000 } from './sqlite/1732190100000-knowledge';
import { KnowledgeAttachmentsSqlite1732190300000 } from './sqlite/1732190300000-knowledge-attachments';

export const SQLITE_MIGRATIONS = [CoreSqlite1732190000000, KnowledgeSqlite1732190100000, KnowledgeAttachmentsSqlite1732190300000];
export const POSTGRES_MIGRATIONS = [CorePostgres1732190000000, KnowledgePostgres1732190100000, KnowledgeAttachmentsPostgres1732190300000];
