import * as z from '../../shared/platform/zod.js';
import { calendarFeed } from '../../shared/schedules/calendar.js';
import { publicCalendarRoute } from '../lib/http.js';

export const handler = publicCalendarRoute(
  {
    summary: "A user's on-call shifts from 7 days back to 90 days ahead, as an iCalendar feed (public: the URL's token is the secret)",
    params: z.strictObject({ file: z.string().check(z.maxLength(100)) }),
    errors: { 404: ['Calendar not found'] },
    failure: 'Failed to render calendar',
  },
  async ({ file }) => calendarFeed(file),
);
