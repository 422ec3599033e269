import { z } from 'zod';
import { addUsage, emptyUsage, MODEL_PURPOSES, type ModelPurpose, type Usage } from './conversation.js';
import { objectWithKnownKeys } from './validation.js';
import { builtOnce } from './built-once.js';

const ModelName = builtOnce('models/ModelName', () => z.string().trim().min(1));

/** `models` in task, batch and plan input: a model per purpose; one left out is the worker's default for it. */
export const ModelsSchema = builtOnce('models/ModelsSchema', () =>
  objectWithKnownKeys({
    default: ModelName.optional(),
    planning: ModelName.optional(),
    summary: ModelName.optional(),
  }),
);
export type Models = z.output<typeof ModelsSchema>;

/**
 * The model an input names for `purpose`: `models[purpose]`, and for the agent's own turns the older `model` field
 * too. `undefined` leaves the choice to the worker (`CODELOOP_MODEL`, `CODELOOP_MODEL_PLANNING`, `CODELOOP_MODEL_SUMMARY`).
 */
export function modelFor(input: { model?: string; models?: Models }, purpose: ModelPurpose): string | undefined {
  return input.models?.[purpose] ?? (purpose === 'default' ? input.model : undefined);
}

export interface PurposeSpend {
  calls: number;
  usage: Usage;
  costUsd: number;
}

/** Usage and cost per purpose; a purpose with no call is absent. */
export type SpendByPurpose = Partial<Record<ModelPurpose, PurposeSpend>>;

export function addPurposeSpend(spend: SpendByPurpose, purpose: ModelPurpose, added: PurposeSpend): SpendByPurpose {
  const before = spend[purpose] ?? { calls: 0, usage: emptyUsage(), costUsd: 0 };
  return {
    ...spend,
    [purpose]: { calls: before.calls + added.calls, usage: addUsage(before.usage, added.usage), costUsd: before.costUsd + added.costUsd },
  };
}

/** The sum of several tasks' spend by purpose. */
export function sumSpendByPurpose(all: (SpendByPurpose | undefined)[]): SpendByPurpose {
  let total: SpendByPurpose = {};
  for (const spend of all)
    for (const purpose of MODEL_PURPOSES) if (spend?.[purpose]) total = addPurposeSpend(total, purpose, spend[purpose]);
  return total;
}

/** `default $0.1234 (12 calls) · summary $0.0021 (1 call)`, in the order of `MODEL_PURPOSES`. */
export function describeSpendByPurpose(spend: SpendByPurpose | undefined): string {
  return MODEL_PURPOSES.flatMap((purpose) => {
    const part = spend?.[purpose];
    return part ? [`${purpose} $${part.costUsd.toFixed(4)} (${part.calls} call${part.calls === 1 ? '' : 's'})`] : [];
  }).join(' · ');
}
