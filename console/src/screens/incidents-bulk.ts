/** The outcome of acknowledging or resolving several incidents at once, in words (pure: tested beside it). */
export interface BulkOutcome {
  action: 'acknowledge' | 'resolve';
  results: { id: string; title: string; error?: string }[];
}

const PAST = { acknowledge: 'acknowledged', resolve: 'resolved' } as const;

export function bulkSummary({ action, results }: BulkOutcome): string {
  const done = results.filter((result) => !result.error).length;
  const failed = results.length - done;
  const incidents = (count: number) => `${count} incident${count === 1 ? '' : 's'}`;
  if (failed === 0) return `${incidents(done)} ${PAST[action]}.`;
  if (done === 0) return `None ${PAST[action]}: ${incidents(failed)} refused.`;
  return `${incidents(done)} ${PAST[action]}; ${failed} not:`;
}
