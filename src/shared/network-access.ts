import { z } from 'zod';
import { builtOnce } from './built-once.js';

/**
 * One host a task's commands may reach through the worker's proxy: a name (`registry.npmjs.org`), a name with a
 * port (`127.0.0.2:4873`), or every subdomain of a name (`*.pythonhosted.org`). No scheme, path or user.
 */
export const NetworkHostSchema = builtOnce('network-access/NetworkHostSchema', () =>
  z
    .string()
    .regex(
      /^(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*(:\d{1,5})?$/,
      'must be a host name, optionally *. before it and :port after it (registry.npmjs.org, *.pythonhosted.org, 127.0.0.2:4873)',
    ),
);

/**
 * What a task's commands may reach: `off` nothing, `on` whatever the worker reaches, or a list of hosts, reached only
 * through a proxy the worker runs for the task (HTTP CONNECT, through the standard `HTTPS_PROXY`/`HTTP_PROXY`).
 */
export const NetworkSchema = builtOnce('network-access/NetworkSchema', () =>
  z.union([z.enum(['off', 'on']), z.array(NetworkHostSchema).min(1, 'name at least one host, or say "off"').max(200)]),
);
export type Network = 'off' | 'on' | string[];

/** Whether `host:port` is on the list: an entry without a port allows every port, `*.` every subdomain. */
export function hostAllowed(list: readonly string[], host: string, port: number): boolean {
  const wanted = host.toLowerCase().replace(/^\[|\]$/g, '');
  return list.some((entry) => {
    const [name, entryPort] = splitEntry(entry.toLowerCase());
    if (entryPort !== undefined && entryPort !== port) return false;
    return name.startsWith('*.') ? wanted.endsWith(name.slice(1)) : wanted === name;
  });
}

/**
 * The narrower of two settings, for a setting that may only narrow another (the repository's `codeloop.json` under
 * the operator's input): `off` below any list, any list below `on`, and of two lists the entries of `asked` that
 * `given` allows.
 */
export function narrowerNetwork(given: Network, asked: Network | undefined): Network {
  if (asked === undefined || given === 'off' || asked === 'on') return given;
  if (asked === 'off' || given === 'on') return asked;
  const kept = asked.filter((entry) => {
    const [name, port] = splitEntry(entry);
    return !name.startsWith('*.') && hostAllowed(given, name, port ?? 443) && (port !== undefined || hostAllowed(given, name, 80));
  });
  return kept.length > 0 ? kept : 'off';
}

/** Whether `asked` reaches more than `given`: what a repository's settings may never do. */
export function widensNetwork(given: Network, asked: Network): boolean {
  return JSON.stringify(narrowerNetwork(given, asked)) !== JSON.stringify(asked);
}

/** One line for prompts and status: `off`, `on (everything the worker reaches)`, or the hosts. */
export function describeNetwork(network: Network): string {
  if (network === 'off') return 'off';
  if (network === 'on') return "on (everything the worker's host reaches)";
  return `only ${network.join(', ')} (through a proxy: HTTPS_PROXY/HTTP_PROXY)`;
}

function splitEntry(entry: string): [string, number | undefined] {
  const match = /^(.*):(\d+)$/.exec(entry);
  return match ? [match[1], Number(match[2])] : [entry, undefined];
}
