/**
 * An alert storm (issue 30 §5): 1,000 triggers (300 in `npm test`, test/support/scale.ts; either way
 * well past the key's 120 a minute) for 10 dedup keys within one minute from one key, far past its rate. Heavy for its thousand requests through the local runtime (about ten seconds here); the
 * rules themselves are tested one by one in test/http/alerts.test.ts. Every answer is 202 or 429 (never
 * a 5xx), exactly the key's rate is taken, each dedup key among the taken triggers opens one incident
 * that counts the rest, and each subscriber and on-call person gets one e-mail per incident.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settleEach } from '../../shared/platform/concurrency.js';
import { clock, freezeClock, resetClock } from '../../shared/platform/clock.js';
import { EVENTS_PER_MINUTE } from '../../shared/alerts/ingest.js';
import { Api, eventually, mailTo, settle, subscribeConfirmed, uniqueEmail, type User } from '../support/api.js';
import { scaled } from '../support/scale.js';
import { within } from '../support/deadlines.js';

const N = scaled(1_000, 300);

let api: Api;
let owner: User;
beforeAll(async () => {
  api = await Api.start();
  owner = await api.signUp(uniqueEmail('storm'));
});
afterAll(async () => {
  resetClock();
  await api.close();
});

describe('an alert storm', () => {
  it('answers only 202 and 429, takes the key\'s rate, opens one incident per dedup key and e-mails and pages once per incident', { timeout: within(180_000) }, async () => {
    const tag = uniqueEmail('x').split('@')[0];
    const oncall = `oncall-${tag}@example.com`;
    const subscriber = `sub-${tag}@example.com`;
    const policy = (await api.request('POST', '/api/escalation-policies', { token: owner.token, body: { name: 'Storm', steps: [{ delay_minutes: 0, emails: [oncall] }] } })).body.escalation_policy;
    const monitorId = (await api.request('POST', '/api/monitors', { token: owner.token, body: { name: 'Storm', escalation_policy_id: policy.id } })).body.monitor.id as string;
    await subscribeConfirmed(api, owner.token, monitorId, subscriber);
    const key = (await api.request('POST', `/api/monitors/${monitorId}/integrations`, { token: owner.token, body: { name: 'Storm' } })).body.integration.key as string;

    // One minute for the whole storm, whatever the machine's pace.
    freezeClock(new Date(Math.floor(clock.now().getTime() / 60_000) * 60_000 + 1_000));
    const events = Array.from({ length: N }, (_, index) => `storm-${index % 10}`);
    const answers = await settleEach(events, 16, async (dedupKey) => {
      const response = await api.request('POST', '/v2/enqueue', {
        body: { routing_key: key, event_action: 'trigger', dedup_key: dedupKey, payload: { summary: `Storm ${dedupKey}`, source: 'storm', severity: 'critical' } },
      });
      return { dedupKey, status: response.status, retryAfter: response.headers.get('retry-after'), body: response.status === 202 || response.status === 429 ? undefined : response.body };
    });
    const results = answers.map((answer) => {
      if (answer.status !== 'fulfilled') throw answer.reason;
      return answer.value;
    });
    const taken = results.filter((result) => result.status === 202);
    const refused = results.filter((result) => result.status === 429);
    // Any other answer is shown with its body (what failed, not only how many).
    expect(results.filter((result) => result.status !== 202 && result.status !== 429)).toEqual([]);
    expect(taken.length + refused.length).toBe(N);
    expect(taken).toHaveLength(EVENTS_PER_MINUTE);
    for (const result of refused) expect(Number(result.retryAfter)).toBe(59);

    const takenPerKey = new Map<string, number>();
    for (const result of taken) takenPerKey.set(result.dedupKey, (takenPerKey.get(result.dedupKey) ?? 0) + 1);
    const incidents = (await api.request('GET', `/api/incidents?monitor_id=${monitorId}&limit=100`, { token: owner.token })).body.incidents as { id: string; title: string; alert_count: number }[];
    expect(incidents.map((incident) => incident.title).sort()).toEqual([...takenPerKey.keys()].map((dedupKey) => `Storm ${dedupKey}`).sort());
    for (const incident of incidents) expect(incident.alert_count).toBe(takenPerKey.get(incident.title.slice('Storm '.length)));

    // Repeats are counted, not written: each timeline is its creation and its one page.
    for (const incident of incidents) {
      const updates = (await api.request('GET', `/api/incidents/${incident.id}/updates`, { token: owner.token })).body.updates as { kind: string }[];
      expect(updates.map((update) => update.kind)).toEqual(['created', 'escalation_paged']);
    }
    await eventually(async () => (await mailTo(api, subscriber)).length + (await mailTo(api, oncall)).length, (count) => count >= 2 * incidents.length, 60_000);
    await settle(api);
    const newIncidentMails = (await mailTo(api, subscriber)).map((mail) => mail.subject);
    expect(newIncidentMails).toHaveLength(incidents.length);
    for (const incident of incidents) expect(newIncidentMails.filter((subject) => subject.includes(incident.title))).toHaveLength(1);
    const pages = (await mailTo(api, oncall)).map((mail) => mail.subject).sort();
    expect(pages).toEqual(incidents.map((incident) => `[Escalation step 1] ${incident.title}`).sort());
  });
});
