// The `timeZone` setting: how TIMESTAMP values are written in responses. GridDB accepts `Z`,
// `±hh:mm`, `±hhmm` and `AUTO` (the machine's zone); unset means UTC, written with a `Z`.
// Input timestamps are not affected: they must end in a literal `Z` (spec/surface.md §1.4).

export type TimeZone =
  | { kind: 'offset'; offsetMinutes: number }
  | { kind: 'local' };

export const TIME_ZONE_UTC: TimeZone = { kind: 'offset', offsetMinutes: 0 };

/** Largest offset a zone may have (±18:00, as java.time's ZoneOffset). */
const OFFSET_MINUTES_MAX = 18 * 60;

/** The zone of the setting's text, or undefined when the text is not one. */
export function parseTimeZone(text: string): TimeZone | undefined {
  if (text === 'Z') return TIME_ZONE_UTC;
  if (text === 'AUTO' || text === 'auto') return { kind: 'local' };
  const match = /^([+-])(\d{2}):?(\d{2})$/.exec(text);
  if (match === null) return undefined;
  const hours = Number(match[2]);
  const minutes = Number(match[3]);
  if (minutes >= 60) return undefined;
  const offsetMinutes = (match[1] === '-' ? -1 : 1) * (hours * 60 + minutes);
  if (Math.abs(offsetMinutes) > OFFSET_MINUTES_MAX) return undefined;
  return { kind: 'offset', offsetMinutes };
}
