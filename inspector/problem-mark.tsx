/** What was wrong with a damaged record, marked at the start of its row. */
export function ProblemMark({ problems }: { problems: readonly string[] | undefined }) {
  if (!problems) return null;
  const text = `Damaged record: ${problems.join('; ')}`;
  return (
    <span class="problem" title={text} role="img" aria-label={text}>
      ⚠
    </span>
  );
}
