import { parse as parseYaml } from 'yaml';
import { checkPlan, type Plan } from '../../shared/plan.js';

export type ReviewVerdict =
  { kind: 'approve' } | { kind: 'reject'; reason: string } | { kind: 'revised'; plan: Plan } | { kind: 'unclear'; problem: string };

/**
 * What a reviewer's answer asks for: `approve`, `reject <why>`, or a revised plan in YAML (fenced or not), checked
 * like a submitted one. Anything else is unclear, and says why, so the question can be asked again.
 */
export function reviewVerdict(answer: string, maxTasks: number): ReviewVerdict {
  const text = answer.trim();
  if (/^approved?\b[.!]?$/i.test(text)) return { kind: 'approve' };
  const rejection = /^reject(?:ed)?\b[\s:,-]*([\s\S]*)$/i.exec(text);
  if (rejection) return { kind: 'reject', reason: rejection[1].trim() || 'no reason given' };
  let document: unknown;
  try {
    document = parseYaml(text.replace(/^```[a-z]*\n([\s\S]*?)\n```$/i, '$1'));
  } catch (error) {
    return {
      kind: 'unclear',
      problem: `the answer is neither 'approve', 'reject <why>' nor a plan in YAML (${(error as Error).message.split('\n')[0]})`,
    };
  }
  if (typeof document !== 'object' || document === null)
    return { kind: 'unclear', problem: "the answer is neither 'approve', 'reject <why>' nor a plan in YAML" };
  const checked = checkPlan(document, maxTasks);
  return 'plan' in checked ? { kind: 'revised', plan: checked.plan } : { kind: 'unclear', problem: checked.problems.join('; ') };
}
