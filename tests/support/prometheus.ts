/** One sample of Prometheus's text exposition format: `name{label="value",...} 12.5`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Reads a worker's `/metrics` and parses every sample (comments and `# TYPE` lines skipped). */
export async function scrapeMetrics(address: string): Promise<Sample[]> {
  const response = await fetch(`http://${address}/metrics`);
  if (!response.ok) throw new Error(`GET http://${address}/metrics answered ${response.status}`);
  return parseExposition(await response.text());
}

export function parseExposition(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
      if (!match) throw new Error(`not a Prometheus sample: ${line}`);
      const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, key, value]) => [key, value]));
      return { name: match[1], labels, value: Number(match[3]) };
    });
}

/** The sum of a metric's samples whose labels include `labels`, over whatever other labels they have. */
export function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
    .reduce((sum, sample) => sum + sample.value, 0);
}

/** `{ label value: sum }` over one label of a metric, e.g. tool calls by tool. */
export function totalsBy(samples: Sample[], name: string, label: string): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const sample of samples) {
    if (sample.name !== name || sample.labels[label] === undefined) continue;
    totals[sample.labels[label]] = (totals[sample.labels[label]] ?? 0) + sample.value;
  }
  return totals;
}
