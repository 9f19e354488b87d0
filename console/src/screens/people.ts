/**
 * Pure helpers of the Teams, Profile and Webhooks screens (tested beside them in people.test.ts):
 * a team's slug from its name, phone numbers in E.164 as the API reads them, whether someone can be
 * reached by phone, notification rules by urgency, and a webhook attempt's answer in one line.
 */

/** A slug the API accepts (lowercase letters, digits and hyphens) proposed from a team's name. */
export function slugFromName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100);
}

/**
 * A phone number as the API stores it (E.164: `+`, then 8–15 digits, the first 1–9), with the spaces,
 * dashes, dots and parentheses people type dropped; undefined when it is not one (the API says why).
 */
export function e164(typed: string): string | undefined {
  const compact = typed.trim().replace(/[\s\-.()]/g, '');
  return /^\+[1-9]\d{7,14}$/.test(compact) ? compact : undefined;
}

/** Whether any of the methods reaches the person by phone (SMS or voice), verified or not. */
export const hasPhone = (methods: readonly { type: string }[]): boolean => methods.some((method) => method.type === 'sms' || method.type === 'voice');

/** The rules of each urgency, high first, each by its delay. */
export function rulesByUrgency<R extends { urgency: 'high' | 'low'; delay_minutes: number }>(rules: readonly R[]): { urgency: 'high' | 'low'; rules: R[] }[] {
  return (['high', 'low'] as const).map((urgency) => ({
    urgency,
    rules: rules.filter((rule) => rule.urgency === urgency).sort((a, b) => a.delay_minutes - b.delay_minutes),
  }));
}

/** "after 5 minutes", "at once" */
export const delayText = (minutes: number): string => (minutes === 0 ? 'at once' : `after ${minutes} minute${minutes === 1 ? '' : 's'}`);

/** One attempt of a webhook delivery in a line: the status the receiver answered (or the error), and how long it took. */
export function attemptSummary(attempt: { status: number | null; duration_ms: number; error: string | null }): string {
  const outcome = attempt.status === null ? (attempt.error ?? 'No answer') : `HTTP ${attempt.status}${attempt.error ? ` — ${attempt.error}` : ''}`;
  return `${outcome} in ${Math.round(attempt.duration_ms)} ms`;
}
