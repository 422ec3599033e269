/** Durations written the short way ("1h30m", "45s", "2h5s"), in seconds. */

const SECONDS_PER_UNIT: Record<string, number> = { h: 360, m: 60, s: 1 };

export function parseDuration(text: string): number {
  const parts = [...text.matchAll(/(\d+)([hms])/g)];
  if (parts.length === 0 || parts.map((part) => part[0]).join('') !== text) {
    throw new Error(`not a duration: ${JSON.stringify(text)}`);
  }
  return parts.reduce((total, [, amount, unit]) => total + Number(amount) * SECONDS_PER_UNIT[unit], 0);
}

export function formatDuration(seconds: number): string {
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = seconds % 60;
  return [hours ? `${hours}h` : '', minutes ? `${minutes}m` : '', rest || seconds === 0 ? `${rest}s` : ''].join('');
}
