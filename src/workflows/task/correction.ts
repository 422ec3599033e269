import { gateVerdict, MAX_CORRECTION_ROUNDS, type GateResult } from '../../shared/gates.js';
import type { Guards } from './guards.js';
import { askForGuidance, type PolicyHost } from './policies.js';
import { describeFailedGates } from './verifier.js';

/**
 * A correction round after failing gates: counted, escalated to a human when the guards say the same check keeps
 * failing, or when the rounds are used up (the human may grant more). Returns the notes for the agent: the failed
 * gates, described after any answer so the agent sees the rounds a 'continue' granted, and the human's guidance.
 */
export async function correctionRound(host: PolicyHost, guards: Guards, results: GateResult[]): Promise<string[]> {
  const { state } = host;
  state.correctionRounds += 1;
  const guidance: string[] = [];
  const escalation = guards.afterGates(results, state.iteration);
  if (escalation) {
    guidance.push(`Guidance from a human: ${await askForGuidance(host, { origin: 'escalation', question: escalation }, 'escalated')}`);
    guards.guided();
  } else if (state.correctionRounds >= state.maxCorrectionRounds) {
    const failed = results.filter((result) => gateVerdict(result) === 'failed').map((result) => result.name);
    await askForGuidance(
      host,
      {
        origin: 'escalation',
        question: `The gates (${failed.join(', ')}) still fail after ${state.correctionRounds} correction rounds. Answer 'continue' for ${MAX_CORRECTION_ROUNDS} more rounds, or 'stop'.`,
        options: ['continue', 'stop'],
      },
      'verification_failed',
    );
    state.maxCorrectionRounds += MAX_CORRECTION_ROUNDS;
  }
  return [describeFailedGates(results, state.correctionRounds, state.maxCorrectionRounds), ...guidance];
}
