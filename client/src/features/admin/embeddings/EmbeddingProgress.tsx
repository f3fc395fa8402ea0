import { useQuery } from '@tanstack/react-query';
import { EMBEDDING_STATUS_QUERY_KEY, embeddingsApi, progressLine } from './embeddings-api';

/** Knowledge tab: how far the embeddings backfill is ("n of N chunks embedded"); nothing while embeddings are off. Polls while it runs. */
export function EmbeddingProgress() {
  const status = useQuery({
    queryKey: EMBEDDING_STATUS_QUERY_KEY,
    queryFn: embeddingsApi.status,
    refetchInterval: (query) => (query.state.data?.running ? 1000 : 15000),
  });
  if (!status.data?.enabled) return null;
  return (
    <p className={`kb-embeddings${status.data.degraded ? ' is-degraded' : ''}`} role="status" aria-live="polite">
      {progressLine(status.data)}
      {status.data.degraded && !status.data.running ? ' (embedding service unreachable: searching by keywords only)' : ''}
    </p>
  );
}
