import { describe, expect, it } from 'vitest';
import type { RunStep } from '../../../db/schema/automation';
import { describeLine, runState } from './run-history.server';

const lines = (...steps: RunStep[]) => steps.map((step) => ({ step }));

describe('runState', () => {
  it('reads a verdict without actions', () => {
    expect(runState(lines('not_matched'))).toBe('not_matched');
    expect(runState(lines('matched'))).toBe('matched');
    expect(runState(lines('loop_skipped'))).toBe('loop_skipped');
    expect(runState([])).toBe('matched');
  });

  it('judges a matched run by its action lines', () => {
    expect(runState(lines('matched', 'action_applied', 'action_applied'))).toBe('applied');
    expect(runState(lines('matched', 'action_applied', 'action_skipped'))).toBe('applied');
    expect(runState(lines('matched', 'action_applied', 'action_failed'))).toBe('partly_failed');
    expect(runState(lines('matched', 'action_failed', 'action_skipped'))).toBe('failed');
    expect(runState(lines('matched', 'action_failed'))).toBe('failed');
    expect(runState(lines('matched', 'action_skipped'))).toBe('matched');
  });

  it('lets a loop skip win over anything else, and a match over a stray not_matched', () => {
    expect(runState(lines('loop_skipped', 'action_applied'))).toBe('loop_skipped');
    expect(runState(lines('not_matched', 'matched', 'action_applied'))).toBe('applied');
  });
});

describe('describeLine', () => {
  it('prefers the error, then the reason, then the result', () => {
    expect(
      describeLine({
        step: 'action_failed',
        detail: { error: 'inbox gone', reason: 'x' },
      }),
    ).toBe('inbox gone');
    expect(
      describeLine({
        step: 'not_matched',
        detail: { reason: 'condition 1 (country) does not hold' },
      }),
    ).toBe('condition 1 (country) does not hold');
    expect(
      describeLine({
        step: 'action_applied',
        detail: { result: 'assigned to Ann' },
      }),
    ).toBe('assigned to Ann');
    expect(describeLine({ step: 'matched', detail: {} })).toBe('');
  });
});
