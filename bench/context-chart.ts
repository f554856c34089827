/** One line of the chart: a value per step (1-based steps). */
export interface Series {
  label: string;
  color: string;
  values: readonly number[];
}

const width = 760;
const height = 380;
const margin = { top: 48, right: 24, bottom: 48, left: 72 };
const plotWidth = width - margin.left - margin.right;
const plotHeight = height - margin.top - margin.bottom;

function escapeXml(text: string): string {
  return text.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);
}

function formatTokens(value: number): string {
  if (value >= 1e6) return `${value / 1e6}M`;
  if (value >= 1e3) return `${value / 1e3}K`;
  return String(value);
}

/**
 * A line chart of tokens per model step with a log-scale y axis (the two series differ by orders of
 * magnitude), as a standalone SVG document: no script, no external resources.
 */
export function tokensChart(title: string, subtitle: string, series: readonly Series[]): string {
  const steps = Math.max(...series.map((s) => s.values.length));
  const all = series.flatMap((s) => s.values).filter((v) => v > 0);
  const low = 10 ** Math.floor(Math.log10(Math.min(...all)));
  const high = 10 ** Math.ceil(Math.log10(Math.max(...all)));
  const x = (step: number) => margin.left + ((step - 1) / Math.max(1, steps - 1)) * plotWidth;
  const y = (value: number) =>
    margin.top +
    plotHeight -
    ((Math.log10(Math.max(value, low)) - Math.log10(low)) / Math.log10(high / low)) * plotHeight;

  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif" font-size="12">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${margin.left}" y="20" font-size="15" font-weight="600" fill="#1b1f24">${escapeXml(title)}</text>`,
    `<text x="${margin.left}" y="37" fill="#5d6773">${escapeXml(subtitle)}</text>`,
  ];
  for (let tick = low; tick <= high; tick *= 10) {
    const ty = y(tick).toFixed(1);
    parts.push(
      `<line x1="${margin.left}" x2="${width - margin.right}" y1="${ty}" y2="${ty}" stroke="#e3e7ec"/>`,
      `<text x="${margin.left - 8}" y="${ty}" dy="4" text-anchor="end" fill="#5d6773">${formatTokens(tick)}</text>`,
    );
  }
  for (let step = 1; step <= steps; step++) {
    if (step !== 1 && step % 5 !== 0) continue;
    parts.push(
      `<text x="${x(step).toFixed(1)}" y="${height - margin.bottom + 18}" text-anchor="middle" fill="#5d6773">${step}</text>`,
    );
  }
  parts.push(
    `<text x="${margin.left + plotWidth / 2}" y="${height - 10}" text-anchor="middle" fill="#1b1f24">model step</text>`,
    `<text transform="translate(16 ${margin.top + plotHeight / 2}) rotate(-90)" text-anchor="middle" fill="#1b1f24">estimated tokens sent (log scale)</text>`,
    `<rect x="${margin.left}" y="${margin.top}" width="${plotWidth}" height="${plotHeight}" fill="none" stroke="#c4cbd3"/>`,
  );
  series.forEach((s, i) => {
    const points = s.values.map((v, step) => `${x(step + 1).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
    parts.push(
      `<polyline points="${points}" fill="none" stroke="${s.color}" stroke-width="2.5" stroke-linejoin="round"/>`,
    );
    const ly = margin.top + 16 + i * 18;
    parts.push(
      `<line x1="${margin.left + 12}" x2="${margin.left + 36}" y1="${ly}" y2="${ly}" stroke="${s.color}" stroke-width="3"/>`,
      `<text x="${margin.left + 42}" y="${ly}" dy="4" fill="#1b1f24">${escapeXml(s.label)}</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
