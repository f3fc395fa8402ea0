import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Hybrid retrieval: one vector per knowledge chunk, of the embedding model that made it (a chunk
 * whose vector is of another model is embedded again). The vector is its float32 values in
 * little-endian bytes (L2-normalised, so a dot product is the cosine); the vertical is copied from
 * the chunk so a vertical's vectors load without a join. A chunk's vector goes with the chunk.
 */
export class ChunkEmbeddingsPostgres1732192200000 implements MigrationInterface {
  name = 'ChunkEmbeddingsPostgres1732192200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE knowledge_chunk_embeddings (
      chunk_id integer PRIMARY KEY REFERENCES knowledge_chunks (id) ON DELETE CASCADE,
      model varchar(200) NOT NULL,
      vertical varchar(40) NOT NULL,
      dims integer NOT NULL,
      vector bytea NOT NULL,
      created_at bigint NOT NULL
    )`);
    await q.query('CREATE INDEX idx_chunk_embeddings_model ON knowledge_chunk_embeddings (model, vertical)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE knowledge_chunk_embeddings');
  }
}
