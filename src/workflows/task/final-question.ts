/**
 * Decides whether a final turn that asks a question, or says it cannot go on, is really a blocker. CodeFRAME's categories:
 * requirements, access, external service. Tactical questions (a name, a style choice) and courtesy offers
 * ("Would you like me to add tests?") after finished work are not: the agent decides those itself.
 */
export type QuestionCategory = 'requirements' | 'access' | 'external-service';

const ACCESS =
  /\b(api[ -]?keys?|credentials?|passwords?|tokens?|secrets?|access to|permissions?|log ?in|ssh keys?|authenticat\w*|authori[sz]\w*)\b/i;
const EXTERNAL =
  /\b(service|server|endpoint|database|host|api)\b[^?]*\b(is it|is the)\b[^?]*\b(down|up|running|available)\b|\b(service|server|endpoint|database|host|api|webhook|queue)\b[^?]*\b(down|unavailable|unreachable|not responding|offline|url|address|hostname|which|where)\b|\b(which|what)\b[^?]*\b(endpoint|url|host|server|database)\b/i;
const REQUIREMENTS =
  /^(should|must|does the|do the|is the|are the)\b|\bor\b|\b(should (the|it|this|we|i|they|users?)|which (one|approach|option|format|behaviou?r|version|framework|library|of)|what (should|is the expected|format|behaviou?r)|clarif\w*|unclear|ambiguous|before i (can|proceed|continue)|i need (to know|you to|more|clarification)|can you (provide|confirm|specify|tell)|please (confirm|specify|provide)|do you want (the|it|this))\b/i;
const TACTICAL = /\b(variable|function|method|class|file|module|branch|parameter) names?\b|\bnaming\b|\bname (it|this|the)\b/i;
const OFFER = /\b(would you like me to|do you want me to|shall i|should i also|let me know if|anything else|happy to)\b/i;

/**
 * How a final text is cut into sentences. `words`: at `.`, `!` or `?` followed by a space or the end, and at line
 * breaks, so `b.txt` or `v1.2` stays inside its sentence. `legacy`: at every `.`, `!` and `?`, as runs from before
 * `finalQuestionsAfterGates` read them (they must decide as they did when they replay).
 */
export type Sentences = 'words' | 'legacy';

function sentencesOf(text: string, split: Sentences): string[] {
  const parts = split === 'legacy' ? (text.match(/[^.!?\n]+[.!?]?/g) ?? []) : text.split(/(?<=[.!?])\s+|\n+/);
  return parts.map((sentence) => sentence.trim()).filter(Boolean);
}

/** The question sentences of a text: those ending in `?`. */
export function questionsIn(text: string, split: Sentences = 'words'): string[] {
  if (split === 'legacy') return (text.match(/[^.!?\n]*\?/g) ?? []).map((question) => question.trim()).filter(Boolean);
  return sentencesOf(text, split).filter((sentence) => sentence.endsWith('?'));
}

/**
 * The category that makes this final text a blocker, or `undefined` when the task may complete. Each question is
 * read with the sentence before it ("I need an API key. Can you provide one?"); offers and tactical questions are
 * judged on the question alone.
 */
export function classifyFinalQuestion(text: string, split: Sentences = 'words'): QuestionCategory | undefined {
  const sentences = sentencesOf(text, split);
  for (const [index, question] of sentences.entries()) {
    if (!question.endsWith('?') || OFFER.test(question) || TACTICAL.test(question)) continue;
    const withContext = `${sentences[index - 1] ?? ''} ${question}`;
    if (ACCESS.test(withContext)) return 'access';
    if (EXTERNAL.test(withContext)) return 'external-service';
    if (REQUIREMENTS.test(question)) return 'requirements';
  }
  return undefined;
}

/**
 * A statement that the work cannot go on without something ("I cannot proceed without the API key.", "I'm unable to
 * continue until the schema is decided.", "Blocked on access to the staging database."): a blocker like a question,
 * though it asks nothing. Only first-person statements about going on count, so a summary that mentions an error it
 * could not reproduce still completes.
 */
const CANNOT_GO_ON =
  /\b(i|we)\s*(cannot|can ?not|can't|can’t|am unable to|'m unable to|’m unable to|are unable to|am not able to|'m not able to|won't be able to|will not be able to)\s+(proceed|continue|go on|go further|finish|complete (this|the task|it)|move forward|make (any )?progress)\b|^(i('m| am)\s+)?blocked\s+(on|by)\b|\bi('m| am) stuck\b/i;

/** The sentences of a final text that say the work cannot go on, with the category of what it needs; or `undefined`. */
export function cannotGoOn(text: string, split: Sentences = 'words'): { statement: string; category: QuestionCategory } | undefined {
  const sentences = sentencesOf(text, split);
  const stuck = sentences.filter((sentence) => !sentence.endsWith('?') && CANNOT_GO_ON.test(sentence));
  if (stuck.length === 0) return undefined;
  const statement = stuck.join(' ');
  const category = ACCESS.test(statement) ? 'access' : EXTERNAL.test(statement) ? 'external-service' : 'requirements';
  return { statement, category };
}

/** What a final turn says it lacks or asks for, with its category: the sentences a human would be asked. */
export interface FinalSignal {
  /** A statement that the work cannot go on, or a question. */
  kind: 'statement' | 'question';
  text: string;
  category: QuestionCategory;
}

export function finalSignal(text: string): FinalSignal | undefined {
  const stuck = cannotGoOn(text);
  if (stuck) return { kind: 'statement', text: stuck.statement, category: stuck.category };
  const category = classifyFinalQuestion(text);
  return category ? { kind: 'question', text: questionsIn(text).join(' '), category } : undefined;
}

/**
 * Whether a final turn is a blocker: it says it could not do the task or needs something it lacks (a requirement,
 * access, an external service), and the work is not done: nothing changed, or the gates fail. Finished work whose
 * gates pass completes, whatever it asks at the end ("Should the confirmation also be skippable with --yes?"):
 * those questions are kept as the task's open questions, for the morning.
 */
export function finalTurnBlocker(text: string, work: { changed: boolean; gatesFailing: boolean }): FinalSignal | undefined {
  if (work.changed && !work.gatesFailing) return undefined;
  return finalSignal(text);
}

/** The questions of a final turn that did not stop the task, and any statement that it lacked something. */
export function openQuestionsIn(text: string): string[] {
  const stuck = cannotGoOn(text);
  return [...questionsIn(text), ...(stuck ? [stuck.statement] : [])];
}
