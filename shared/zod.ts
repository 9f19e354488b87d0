/**
 * zod as this project uses it: `zod/mini` (the core without classic zod's chaining API, a fifth of its
 * size in every bundle) with its English messages, which mini does not load by itself and which a
 * validation error's `details` and a worker's logged error carry. Every module imports zod from here,
 * so every bundle that validates anything configures them.
 */
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

z.config(en());

export * from 'zod/mini';
