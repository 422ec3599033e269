/** Where stored payload content lives, by name; a name always stands for the same bytes, so a put may repeat. */
export interface BlobStore {
  /** Durable once it resolves: a reference to the blob may then go to the server. */
  put(name: string, bytes: Uint8Array): Promise<void>;
  get(name: string): Promise<Uint8Array | undefined>;
  /** Bytes stored, for the benchmarks. */
  size(): Promise<number>;
  close(): Promise<void>;
  /** Where it is, for error messages: `file:///srv/codeloop/payloads`. */
  readonly location: string;
}

export class MissingBlobError extends Error {}
