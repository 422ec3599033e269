import type { TemporalService } from './services.js';
import { firstFreePort, freePort } from './free-port.js';

export interface ServicePorts {
  /** gRPC (configured for every role; the internal worker listens on membership only in 1.29). */
  grpc: number;
  /** Ringpop membership, by which the services find each other (through the database) and split the shards. */
  membership: number;
  /** The frontend's HTTP API. */
  http?: number;
}

export interface ClusterPorts {
  services: Record<TemporalService, ServicePorts>;
  postgres: number;
  ui?: number;
}

/**
 * Temporal's own membership ports (6933 on), or the next free ones: a service records its membership port in a
 * SMALLINT column of PostgreSQL, so it must stay below 32768, where the kernel's free ports never are.
 */
const MEMBERSHIP_PORTS_FROM = 6933;

/**
 * The frontend (and Web UI) on the ports asked for; every internal port (the other services, membership, the
 * frontend's HTTP API, PostgreSQL) on a free one, so that a cluster never collides with whatever else runs here.
 */
export async function allocatePorts(frontend: number, ui: number | undefined): Promise<ClusterPorts> {
  const taken = new Set([frontend, ...(ui === undefined ? [] : [ui])]);
  const claim = (port: number) => (taken.add(port), port);
  const next = async (): Promise<number> => {
    const port = await freePort();
    return taken.has(port) ? next() : claim(port);
  };
  const membership = async () => claim(await firstFreePort(MEMBERSHIP_PORTS_FROM, taken));
  return {
    services: {
      history: { grpc: await next(), membership: await membership() },
      matching: { grpc: await next(), membership: await membership() },
      frontend: { grpc: frontend, membership: await membership(), http: await next() },
      worker: { grpc: await next(), membership: await membership() },
    },
    postgres: await next(),
    ui,
  };
}
