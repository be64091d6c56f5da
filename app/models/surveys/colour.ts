/**
 * A brand colour that white text can sit on (WCAG AA, 4.5:1): the survey's colour, darkened in small steps until it
 * qualifies. Used for the public pages' and the in-app module's buttons, chosen answers and answer bubbles, so a
 * light brand colour (yellow, the default blue) still reads. Plain code: the in-app module bundles it.
 */
export function readableBrand(hex: string): string {
  const m = /^#?([0-9a-f]{6})$/i.exec(hex.trim());
  if (!m) return '#1E3A8A';
  let [r, g, b] = [0, 2, 4].map((i) => parseInt(m[1].slice(i, i + 2), 16));
  const lum = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  for (let i = 0; i < 40; i++) {
    const l = 0.2126 * lum(r) + 0.7152 * lum(g) + 0.0722 * lum(b);
    if (1.05 / (l + 0.05) >= 4.6) break;
    [r, g, b] = [r, g, b].map((c) => Math.floor(c * 0.93));
  }
  return `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;
}
