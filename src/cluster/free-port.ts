import net from 'node:net';

/** Asks the kernel for a free loopback port. */
export async function freePort(): Promise<number> {
  return listenOn(0);
}

/** The first port from `from` up that can be bound on loopback and is not in `taken`. */
export async function firstFreePort(from: number, taken: ReadonlySet<number> = new Set()): Promise<number> {
  for (let port = from; port < 65_536; port++) {
    if (taken.has(port)) continue;
    const bound = await listenOn(port).then(
      () => true,
      () => false,
    );
    if (bound) return port;
  }
  throw new Error(`no free port from ${from} up`);
}

function listenOn(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as net.AddressInfo;
      server.close(() => resolve(bound));
    });
  });
}
