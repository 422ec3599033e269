import type { GateResult } from '../../shared/gates.js';
import { gateVerdict } from '../../shared/gates.js';
import type { TaskResult } from '../../shared/task-state.js';
import { applies } from '../common/patches.js';
import type { ToolTarget } from '../common/tool-calls.js';
import { correctionRound } from './correction.js';
import { cannotGoOn, classifyFinalQuestion, finalTurnBlocker, openQuestionsIn, questionsIn, type FinalSignal } from './final-question.js';
import { noteOpenQuestions, pushUserText } from './run-state.js';
import type { TaskParts } from './task-parts.js';
import { describeUnverified } from './verifier.js';

/**
 * The model ended its turn without a tool call. Since `finalQuestionsAfterGates`, the gates decide first: finished
 * work whose gates pass completes, and what it asked is kept as open questions; a turn that says it lacks
 * something (a requirement, access, a service) asks a human only while the work is not done (nothing changed, or
 * the gates fail). Runs from before asked a human about such a turn before any gate ran. Undefined while the task
 * goes on: what the agent is to do next is then the conversation's last message.
 */
export async function finishTurn(run: TaskParts, text: string, target: ToolTarget): Promise<TaskResult | undefined> {
  if (!applies('finalQuestionsAfterGates')) return finishAskingFirst(run, text, target);
  const { state } = run;
  const changed = state.filesChanged.length > 0 || (state.git?.checkpoints.length ?? 0) > 0;
  const unfinished = finalTurnBlocker(text, { changed, gatesFailing: false });
  if (unfinished) return askAboutFinalTurn(run, unfinished, 'nothing has changed yet');
  const results = await verify(run, target);
  if (!results.some((result) => gateVerdict(result) === 'failed')) {
    const unverified = describeUnverified(results);
    if (!unverified || state.toldUnverified) return completeVerified(run, text);
    // Once: the agent hears which gates could not say anything, and may check the work another way.
    state.toldUnverified = true;
    noteOpenQuestions(state, openQuestionsIn(text));
    pushCorrection(run, [unverified]);
    return undefined;
  }
  const stuck = finalTurnBlocker(text, { changed, gatesFailing: true });
  const answer = stuck ? await askFinalQuestion(run, stuck, 'the gates fail') : undefined;
  if (answer === undefined) noteOpenQuestions(state, openQuestionsIn(text));
  else run.guards.guided();
  const notes = await correctionRound(run, run.guards, results);
  if (answer !== undefined) notes.push(`A human answered what you said at the end: ${answer}`);
  pushCorrection(run, notes);
  return undefined;
}

/** How runs from before `finalQuestionsAfterGates` finish: a question or a statement that it cannot go on asks first. */
async function finishAskingFirst(run: TaskParts, text: string, target: ToolTarget): Promise<TaskResult | undefined> {
  const category = classifyFinalQuestion(text, 'legacy');
  if (category) {
    const answer = await run.askHuman({
      origin: 'final-question',
      question: questionsIn(text, 'legacy').join(' '),
      context: `${category} question`,
    });
    pushUserText(run.state, `A human answered your question: ${answer}`);
    return undefined;
  }
  const stuck = cannotGoOn(text, 'legacy');
  if (stuck && applies('finalStatements')) {
    const answer = await run.askHuman({
      origin: 'final-question',
      question: stuck.statement,
      context: `${stuck.category}: the agent says it cannot go on`,
    });
    pushUserText(run.state, `You said you cannot go on. A human answered: ${answer}`);
    return undefined;
  }
  const results = await verify(run, target);
  if (!results.some((result) => gateVerdict(result) === 'failed')) return completeVerified(run, text);
  pushCorrection(run, await correctionRound(run, run.guards, results));
  return undefined;
}

/** A final turn that lacks something while the work is not done: the human's answer goes back to the agent. */
async function askAboutFinalTurn(run: TaskParts, signal: FinalSignal, why: string): Promise<undefined> {
  const answer = await askFinalQuestion(run, signal, why);
  pushUserText(
    run.state,
    signal.kind === 'statement' ? `You said you cannot go on. A human answered: ${answer}` : `A human answered your question: ${answer}`,
  );
  return undefined;
}

function askFinalQuestion(run: TaskParts, signal: FinalSignal, why: string): Promise<string> {
  const said = signal.kind === 'statement' ? `${signal.category}: the agent says it cannot go on` : `${signal.category} question`;
  return run.askHuman({ origin: 'final-question', question: signal.text, context: `${said}, and ${why}` });
}

async function verify(run: TaskParts, target: ToolTarget): Promise<GateResult[]> {
  run.state.phase = 'verifying';
  run.publish();
  return run.verifier.run(target);
}

/**
 * No gate failed (one that could not say anything does not send the work back: nothing the agent did failed it):
 * the task completes, its result saying whether it was verified, with the questions its last turn left open.
 */
async function completeVerified(run: TaskParts, text: string): Promise<TaskResult> {
  if (applies('finalQuestionsAfterGates')) noteOpenQuestions(run.state, openQuestionsIn(text));
  run.guards.passed();
  await run.trail.finish(`${run.input.title}\n\n${text}`, true);
  await run.endEnvironment();
  return run.complete(text);
}

/** Back to editing, with what the gates (or the missing checks) and any human said. */
function pushCorrection(run: TaskParts, notes: string[]): void {
  run.state.phase = 'editing';
  run.state.messages.push({ role: 'user', content: notes.map((note) => ({ type: 'text', text: note })) });
  run.publish();
}
