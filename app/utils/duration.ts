/** Its own module, so that screens which do not show logged time do not carry it. */
/** Logged time as hours and minutes: "0m", "45m", "2h 05m" (time tracking). */
export function formatHoursMinutes(seconds: number) {
  const minutes = Math.floor(Math.max(0, seconds) / 60);
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return h ? `${h}h ${String(m).padStart(2, '0')}m` : `${m}m`;
}

