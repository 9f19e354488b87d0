import * as z from '../../shared/platform/zod.js';
import { described } from '../../shared/platform/api/common.js';
import { newCalendarToken } from '../../shared/schedules/calendar.js';
import { httpRoute } from '../lib/http.js';

export const handler = httpRoute(
  {
    summary: "A fresh secret URL of the caller's on-call calendar (their shifts in every schedule as iCalendar); the previous URL stops working",
    response: z.strictObject({ url: described(z.string(), { description: 'GET it (no token needed: the URL is the secret) or subscribe a calendar app to it', example: 'https://api.example.com/calendars/3q2-7wEeR9rS1j6uVx0yZ8aBcD4eFgHiJkLmNoPqRsT.ics' }) }),
    failure: 'Failed to create calendar URL',
  },
  async ({ caller }) => newCalendarToken(caller),
);
