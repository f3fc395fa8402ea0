/** Migrations per dialect, in order. Each feature adds its pair (sqlite/ and postgres/), or one where only that dialect needs a change. */
import { CorePostgres1732190000000 } from './postgres/1732190000000-core';
import { KnowledgePostgres1732190100000 } from './postgres/1732190100000-knowledge';
import { AuthPostgres1732190200000 } from './postgres/1732190200000-auth';
import { KnowledgeAttachmentsPostgres1732190300000 } from './postgres/1732190300000-knowledge-attachments';
import { AgentsPostgres1732190400000 } from './postgres/1732190400000-agents';
import { AnalyticsPostgres1732190500000 } from './postgres/1732190500000-analytics';
import { KnowledgeSearchPostgres1732190600000 } from './postgres/1732190600000-knowledge-search';
import { KnowledgePostingsReadsPostgres1732190700000 } from './postgres/1732190700000-knowledge-postings-reads';
import { UsageAnsweredPostgres1732190800000 } from './postgres/1732190800000-usage-answered';
import { OtpRequesterPostgres1732190900000 } from './postgres/1732190900000-otp-requester';
import { KnowledgeJurisdictionPostgres1732191400000 } from './postgres/1732191400000-knowledge-jurisdiction';
import { ConversationsPostgres1732191500000 } from './postgres/1732191500000-conversations';
import { UsageKindPostgres1732192000000 } from './postgres/1732192000000-usage-kind';
import { KnowledgeGapsPostgres1732192100000 } from './postgres/1732192100000-knowledge-gaps';
import { ChunkEmbeddingsPostgres1732192200000 } from './postgres/1732192200000-chunk-embeddings';
import { LimitsPostgres1732192500000 } from './postgres/1732192500000-limits';
import { TeamPostgres1732193000000 } from './postgres/1732193000000-team';
import { AuditPostgres1732193100000 } from './postgres/1732193100000-audit';
import { TrustPostgres1732193300000 } from './postgres/1732193300000-trust';
import { A2aPostgres1732193900000 } from './postgres/1732193900000-a2a';
import { WidgetsPostgres1732194800000 } from './postgres/1732194800000-widgets';
import { HandoffPostgres1732195000000 } from './postgres/1732195000000-handoff';
import { SiteImportPostgres1732195100000 } from './postgres/1732195100000-site-import';
import { CoreSqlite1732190000000 } from './sqlite/1732190000000-core';
import { KnowledgeSqlite1732190100000 } from './sqlite/1732190100000-knowledge';
import { AuthSqlite1732190200000 } from './sqlite/1732190200000-auth';
import { KnowledgeAttachmentsSqlite1732190300000 } from './sqlite/1732190300000-knowledge-attachments';
import { AgentsSqlite1732190400000 } from './sqlite/1732190400000-agents';
import { AnalyticsSqlite1732190500000 } from './sqlite/1732190500000-analytics';
import { KnowledgeSearchSqlite1732190600000 } from './sqlite/1732190600000-knowledge-search';
import { UsageAnsweredSqlite1732190800000 } from './sqlite/1732190800000-usage-answered';
import { OtpRequesterSqlite1732190900000 } from './sqlite/1732190900000-otp-requester';
import { KnowledgeJurisdictionSqlite1732191400000 } from './sqlite/1732191400000-knowledge-jurisdiction';
import { ConversationsSqlite1732191500000 } from './sqlite/1732191500000-conversations';
import { UsageKindSqlite1732192000000 } from './sqlite/1732192000000-usage-kind';
import { KnowledgeGapsSqlite1732192100000 } from './sqlite/1732192100000-knowledge-gaps';
import { ChunkEmbeddingsSqlite1732192200000 } from './sqlite/1732192200000-chunk-embeddings';
import { KnowledgeIndexPendingSqlite1732192300000 } from './sqlite/1732192300000-knowledge-index-pending';
import { LimitsSqlite1732192500000 } from './sqlite/1732192500000-limits';
import { TeamSqlite1732193000000 } from './sqlite/1732193000000-team';
import { AuditSqlite1732193100000 } from './sqlite/1732193100000-audit';
import { TrustSqlite1732193300000 } from './sqlite/1732193300000-trust';
import { A2aSqlite1732193900000 } from './sqlite/1732193900000-a2a';
import { WidgetsSqlite1732194800000 } from './sqlite/1732194800000-widgets';
import { HandoffSqlite1732195000000 } from './sqlite/1732195000000-handoff';
import { SiteImportSqlite1732195100000 } from './sqlite/1732195100000-site-import';

export const SQLITE_MIGRATIONS = [
  CoreSqlite1732190000000,
  KnowledgeSqlite1732190100000,
  AuthSqlite1732190200000,
  KnowledgeAttachmentsSqlite1732190300000,
  AgentsSqlite1732190400000,
  AnalyticsSqlite1732190500000,
  KnowledgeSearchSqlite1732190600000,
  UsageAnsweredSqlite1732190800000,
  OtpRequesterSqlite1732190900000,
  KnowledgeJurisdictionSqlite1732191400000,
  ConversationsSqlite1732191500000,
  UsageKindSqlite1732192000000,
  KnowledgeGapsSqlite1732192100000,
  ChunkEmbeddingsSqlite1732192200000,
  KnowledgeIndexPendingSqlite1732192300000,
  LimitsSqlite1732192500000,
  TeamSqlite1732193000000,
  AuditSqlite1732193100000,
  TrustSqlite1732193300000,
  A2aSqlite1732193900000,
  WidgetsSqlite1732194800000,
  HandoffSqlite1732195000000,
  SiteImportSqlite1732195100000,
];
export const POSTGRES_MIGRATIONS = [
  CorePostgres1732190000000,
  KnowledgePostgres1732190100000,
  AuthPostgres1732190200000,
  KnowledgeAttachmentsPostgres1732190300000,
  AgentsPostgres1732190400000,
  AnalyticsPostgres1732190500000,
  KnowledgeSearchPostgres1732190600000,
  KnowledgePostingsReadsPostgres1732190700000,
  UsageAnsweredPostgres1732190800000,
  OtpRequesterPostgres1732190900000,
  KnowledgeJurisdictionPostgres1732191400000,
  ConversationsPostgres1732191500000,
  UsageKindPostgres1732192000000,
  KnowledgeGapsPostgres1732192100000,
  ChunkEmbeddingsPostgres1732192200000,
  LimitsPostgres1732192500000,
  TeamPostgres1732193000000,
  AuditPostgres1732193100000,
  TrustPostgres1732193300000,
  A2aPostgres1732193900000,
  WidgetsPostgres1732194800000,
  HandoffPostgres1732195000000,
  SiteImportPostgres1732195100000,
];
