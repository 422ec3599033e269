import pg from 'pg';
import type { BlobStore } from './blob-store.js';

const TABLE = 'codeloop_payload_blobs';

/**
 * Blobs in a PostgreSQL table, for a cluster: the same database server Temporal uses, so the store is as durable
 * and as backed up as the histories that point into it. An insert is committed before `put` resolves.
 */
export class PostgresBlobStore implements BlobStore {
  readonly location: string;
  private readonly pool: pg.Pool;
  private ready?: Promise<unknown>;

  constructor(url: string) {
    const shown = new URL(url);
    shown.password = shown.password ? '***' : '';
    this.location = shown.toString();
    this.pool = new pg.Pool({ connectionString: url, max: 4 });
    // An idle connection the server dropped (a restart): the pool replaces it; the next query reports real trouble.
    this.pool.on('error', () => undefined);
  }

  async put(name: string, bytes: Uint8Array): Promise<void> {
    await this.table();
    await this.pool.query(`INSERT INTO ${TABLE} (name, data) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, [name, Buffer.from(bytes)]);
  }

  async get(name: string): Promise<Uint8Array | undefined> {
    await this.table();
    const result = await this.pool.query<{ data: Buffer }>(`SELECT data FROM ${TABLE} WHERE name = $1`, [name]);
    return result.rows[0]?.data;
  }

  async size(): Promise<number> {
    await this.table();
    const result = await this.pool.query<{ bytes: string | null }>(`SELECT sum(octet_length(data)) AS bytes FROM ${TABLE}`);
    return Number(result.rows[0]?.bytes ?? 0);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /** Made on first use, safely by several workers at once. */
  private table(): Promise<unknown> {
    this.ready ??= this.pool.query(
      `CREATE TABLE IF NOT EXISTS ${TABLE} (name text PRIMARY KEY, data bytea NOT NULL, stored_at timestamptz NOT NULL DEFAULT now())`,
    );
    return this.ready;
  }
}
