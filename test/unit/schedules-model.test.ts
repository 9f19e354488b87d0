/**
 * The schedule and override bodies (shared/schedules/model.ts): every error text, as `400 Validation errors`
 * details; and where the time-zone library may be imported.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../infra/paths.js';
import { randomUUID } from 'node:crypto';
import { createOverrideInput, createScheduleInput, shiftsQuery, updateScheduleInput } from '../../shared/schedules/model.js';
import { fieldErrors } from '../../shared/platform/validation.js';
import type * as z from '../../shared/platform/zod.js';

const ANA = '6f1c2a8e-3b0e-4f0e-9a59-8b0f5f0c1d2e';
const BEN = '7a2d3b9f-4c1f-4a1f-8b6a-9c1e6a1d2e3f';

const weekly = { name: 'Primary', start: '2026-03-02T09:00', rotation: { type: 'weekly', length: 1 }, handoff_time: '09:00', members: [ANA, BEN] };
const body = (layers: unknown[], extra: Record<string, unknown> = {}) => ({ name: 'Payments', time_zone: 'Europe/Berlin', layers, ...extra });

function errors(schema: z.ZodMiniType, value: unknown) {
  const result = schema.safeParse(value);
  if (result.success) throw new Error(`expected errors, parsed ${JSON.stringify(result.data)}`);
  return fieldErrors(result.error, 'body');
}

describe('schedule body', () => {
  it('takes a weekly rotation with restrictions, keeps the zone in its own spelling and defaults team_id to null', () => {
    const restricted = { ...weekly, restrictions: [{ days: ['mon', 'fri'], start: '22:00', end: '06:00' }] };
    const hourly = { name: 'Follow the sun', start: '2026-03-02T00:00', rotation: { type: 'hourly', length: 8 }, members: [BEN, ANA, BEN] };
    expect(createScheduleInput.parse(body([restricted, hourly], { time_zone: 'america/new_york' }))).toEqual({
      name: 'Payments',
      time_zone: 'America/New_York',
      layers: [restricted, hourly],
      team_id: null,
    });
    expect(createScheduleInput.parse(body([weekly], { time_zone: 'Asia/Kolkata' })).time_zone).toBe('Asia/Kolkata');
    expect(createScheduleInput.parse(body([weekly], { time_zone: 'UTC' })).time_zone).toBe('UTC');
  });

  it('accepts named IANA zones only', () => {
    for (const time_zone of ['Mars/Olympus_Mons', '+05:30', 'GMT+5', '', 'x'.repeat(65)]) {
      expect(errors(createScheduleInput, body([weekly], { time_zone }))).toContainEqual({ field: 'time_zone', message: 'Must be an IANA time zone name such as Europe/Berlin' });
    }
  });

  it('checks local date-times and times of day', () => {
    expect(errors(createScheduleInput, body([{ ...weekly, start: '2026-03-02 09:00' }]))).toEqual([
      { field: 'layers.0.start', message: 'Must be a local date-time YYYY-MM-DDTHH:MM' },
    ]);
    expect(errors(createScheduleInput, body([{ ...weekly, start: '2026-03-02T09:00Z' }]))).toEqual([
      { field: 'layers.0.start', message: 'Must be a local date-time YYYY-MM-DDTHH:MM' },
    ]);
    expect(errors(createScheduleInput, body([{ ...weekly, start: '2026-02-29T09:00' }]))).toEqual([{ field: 'layers.0.start', message: 'Must be a date of the calendar' }]);
    expect(createScheduleInput.parse(body([{ ...weekly, start: '2026-03-02T09:00:00' }])).layers[0]!.start).toBe('2026-03-02T09:00');
    expect(createScheduleInput.parse(body([{ ...weekly, start: '2026-03-02T09:00:00.000000' }])).layers[0]!.start).toBe('2026-03-02T09:00');
    expect(errors(createScheduleInput, body([{ ...weekly, start: '2026-03-02T09:00:59' }]))).toEqual([{ field: 'layers.0.start', message: 'Must be on a whole minute (seconds 00)' }]);
    expect(errors(createScheduleInput, body([{ ...weekly, start: '2026-02-29T09:00:00' }]))).toEqual([{ field: 'layers.0.start', message: 'Must be a date of the calendar' }]);
    expect(errors(createScheduleInput, body([{ ...weekly, start: '2026-03-02T09:00:60' }]))).toEqual([{ field: 'layers.0.start', message: 'Must be a local date-time YYYY-MM-DDTHH:MM' }]);
    expect(errors(createScheduleInput, body([{ ...weekly, restrictions: [{ days: ['mon'], start: '9:00', end: '24:00' }] }]))).toEqual([
      { field: 'layers.0.restrictions.0.start', message: 'Must be a local time HH:MM (00:00–23:59)' },
      { field: 'layers.0.restrictions.0.end', message: 'Must be a local time HH:MM (00:00–23:59)' },
    ]);
  });

  it('requires handoff_time for daily and weekly rotations, any time of day (not only start\'s), and refuses it for hourly ones', () => {
    const { handoff_time: _, ...withoutHandoff } = weekly;
    expect(errors(createScheduleInput, body([withoutHandoff]))).toEqual([{ field: 'layers.0.handoff_time', message: 'Required for daily and weekly rotations' }]);
    expect(createScheduleInput.safeParse(body([{ ...weekly, rotation: { type: 'daily', length: 2 }, handoff_time: '08:00' }])).success).toBe(true);
    expect(createScheduleInput.safeParse(body([{ ...weekly, handoff_time: '23:59' }])).success).toBe(true);
    expect(errors(createScheduleInput, body([{ ...weekly, handoff_time: '24:00' }]))).toEqual([{ field: 'layers.0.handoff_time', message: 'Must be a local time HH:MM (00:00–23:59)' }]);
    expect(errors(createScheduleInput, body([{ ...weekly, rotation: { type: 'hourly', length: 12 } }]))).toEqual([
      { field: 'layers.0.handoff_time', message: 'Only daily and weekly rotations take a handoff_time' },
    ]);
  });

  it('bounds rotations, members, restrictions and layers', () => {
    expect(errors(createScheduleInput, body([{ ...weekly, rotation: { type: 'monthly', length: 0 } }])).map((error) => error.field)).toEqual([
      'layers.0.rotation.type',
      'layers.0.rotation.length',
    ]);
    expect(errors(createScheduleInput, body([{ ...weekly, rotation: { type: 'daily', length: 366 } }]))).toEqual([
      { field: 'layers.0.rotation.length', message: 'Too big: expected number to be <=365' },
    ]);
    expect(errors(createScheduleInput, body([{ ...weekly, members: [] }]))).toEqual([{ field: 'layers.0.members', message: 'Too small: expected array to have >=1 items' }]);
    expect(errors(createScheduleInput, body([{ ...weekly, members: ['ana'] }]))[0]!.field).toBe('layers.0.members.0');
    expect(errors(createScheduleInput, body([{ ...weekly, restrictions: [{ days: ['mon', 'mon'], start: '09:00', end: '17:00' }] }]))).toEqual([
      { field: 'layers.0.restrictions.0.days', message: 'Days must not repeat' },
    ]);
    expect(errors(createScheduleInput, body([{ ...weekly, restrictions: [{ days: [], start: '09:00', end: '17:00' }] }]))[0]!.field).toBe('layers.0.restrictions.0.days');
    expect(errors(createScheduleInput, body([{ ...weekly, restrictions: [{ days: ['Monday'], start: '09:00', end: '17:00' }] }]))[0]!.field).toBe('layers.0.restrictions.0.days.0');
    expect(errors(createScheduleInput, body([]))).toEqual([{ field: 'layers', message: 'Too small: expected array to have >=1 items' }]);
    const eleven = Array.from({ length: 11 }, (_, index) => ({ ...weekly, name: `Layer ${index}` }));
    expect(errors(createScheduleInput, body(eleven))).toEqual([{ field: 'layers', message: 'Too big: expected array to have <=10 items' }]);
    expect(errors(createScheduleInput, body([{ ...weekly, colour: 'red' }]))).toEqual([{ field: 'layers.0.colour', message: 'Unknown field' }]);
  });

  it('wants layer names unique in a schedule', () => {
    expect(errors(createScheduleInput, body([weekly, { ...weekly, name: ' Primary ' }]))).toEqual([{ field: 'layers.1.name', message: 'Layer names must be unique in a schedule' }]);
  });

  it('updates any subset, an absent body being an empty update', () => {
    expect(updateScheduleInput.parse(undefined)).toEqual({});
    expect(updateScheduleInput.parse({ time_zone: 'australia/sydney' })).toEqual({ time_zone: 'Australia/Sydney' });
    expect(errors(updateScheduleInput, { layers: [{ ...weekly, handoff_time: '9:00' }] })).toEqual([
      { field: 'layers.0.handoff_time', message: 'Must be a local time HH:MM (00:00–23:59)' },
    ]);
  });
});

describe('override body', () => {
  it('takes UTC instants, kept as toISOString writes them', () => {
    expect(createOverrideInput.parse({ user_id: ANA, start: '2026-03-29T00:30:00Z', end: '2026-03-29T09:00:00.5Z' })).toEqual({
      user_id: ANA,
      start: '2026-03-29T00:30:00.000Z',
      end: '2026-03-29T09:00:00.500Z',
    });
  });

  it('wants start before end, at most 90 days apart, in UTC', () => {
    expect(errors(createOverrideInput, { user_id: ANA, start: '2026-03-29T09:00:00Z', end: '2026-03-29T09:00:00Z' })).toEqual([{ field: 'end', message: 'Must be after start' }]);
    expect(errors(createOverrideInput, { user_id: ANA, start: '2026-01-01T00:00:00Z', end: '2026-04-01T00:00:00.001Z' })).toEqual([
      { field: 'end', message: 'An override lasts at most 90 days' },
    ]);
    expect(createOverrideInput.safeParse({ user_id: ANA, start: '2026-01-01T00:00:00Z', end: '2026-04-01T00:00:00Z' }).success).toBe(true);
    expect(errors(createOverrideInput, { user_id: ANA, start: '2026-01-01T01:00:00+01:00', end: '2026-01-02' }).map((error) => error.field)).toEqual(['start', 'end']);
    expect(errors(createOverrideInput, { user_id: 'ana', start: '2026-01-01T00:00:00Z', end: '2026-01-02T00:00:00Z', layer: 'x' }).map((error) => error.field)).toEqual([
      'user_id',
      'layer',
    ]);
  });
});

describe('schedule limits and ranges', () => {
  it('names at most 50 different people over its layers (each is checked in the write), however often each appears', () => {
    const people = Array.from({ length: 51 }, () => randomUUID());
    const layers = [{ ...weekly, name: 'A', members: people.slice(0, 40) }, { ...weekly, name: 'B', members: people.slice(30) }];
    expect(errors(createScheduleInput, body(layers))).toEqual([{ field: 'layers', message: 'A schedule names at most 50 different people' }]);
    const fifty = [{ ...weekly, name: 'A', members: people.slice(0, 40) }, { ...weekly, name: 'B', members: [...people.slice(0, 10), ...people.slice(40, 50)] }];
    expect(createScheduleInput.safeParse(body(fifty)).success).toBe(true);
  });

  it('renders shifts over a range after its start, at most 90 days long', () => {
    expect(errors(shiftsQuery, { from: '2026-01-02T00:00:00Z', to: '2026-01-02T00:00:00Z' })).toEqual([{ field: 'to', message: 'Must be after from' }]);
    expect(errors(shiftsQuery, { from: '2026-01-01T00:00:00Z', to: '2026-04-01T00:00:00.001Z' })).toEqual([{ field: 'to', message: 'A range spans at most 90 days' }]);
    expect(shiftsQuery.parse({ from: '2026-01-01T00:00:00Z', to: '2026-04-01T00:00:00Z' })).toEqual({ from: '2026-01-01T00:00:00.000Z', to: '2026-04-01T00:00:00.000Z' });
  });
});

describe('the time-zone library', () => {
  it('is imported by shared/schedules/zone.ts alone, so only the functions that use schedules carry it', () => {
    const importers = ['shared', 'functions', 'infra']
      .flatMap((directory) => readdirSync(join(repositoryRoot, directory), { recursive: true, encoding: 'utf8' }).map((file) => join(directory, file)))
      .filter((file) => file.endsWith('.ts') && /from 'temporal-polyfill/.test(readFileSync(join(repositoryRoot, file), 'utf8')));
    expect(importers).toEqual(['shared/schedules/zone.ts']);
  });
});
