// Thinking and reasoning per provider and model (LLM_THINKING): the provider options that set it, and the tokens
// it may spend on top of the answer's budget, so that a short answer is never starved by thoughts.
import type { JSONValue } from 'ai';

export type ThinkingLevel = 'off' | 'low' | 'medium' | 'high';
export type ProviderName = 'gemini' | 'openai' | 'anthropic';

export interface ThinkingPlan {
  /** AI SDK providerOptions for the call. */
  providerOptions: Record<string, Record<string, JSONValue>>;
  /** Tokens added to the output budget for thinking that counts against it (0 when none can happen). */
  allowance: number;
  /** What was asked of the provider, for logs and /health: "thinkingBudget 0", "reasoning none", ... */
  summary: string;
}

/** Thinking tokens allowed per effective level. "minimal" and "none"-like settings may still think a little. */
const ALLOWANCE = { none: 0, minimal: 256, low: 1024, medium: 4096, high: 16384 } as const;

/**
 * Gemini 2.5 takes a token budget (0 turns thinking off on Flash and Flash-Lite; Pro needs at least 128); Gemini 3
 * and later take a level and cannot turn thinking off (Flash models go down to "minimal", Pro models to "low").
 * Thinking tokens count against maxOutputTokens, hence the allowance. Older models (2.0, 1.5, Gemma) do not think.
 */
function gemini(model: string, level: ThinkingLevel): ThinkingPlan {
  const pro = /-pro\b/.test(model);
  if (/^gemini-2\.5/.test(model)) {
    const budgets = pro ? { off: 128, low: 1024, medium: 8192, high: 32768 } : { off: 0, low: 1024, medium: 8192, high: 24576 };
    const thinkingBudget = budgets[level];
    return { providerOptions: { google: { thinkingConfig: { thinkingBudget } } }, allowance: thinkingBudget, summary: `thinkingBudget ${thinkingBudget}` };
  }
  const generation = /^gemini-(\d+)/.exec(model)?.[1];
  if ((generation && Number(generation) >= 3) || /^gemini-(flash|flash-lite|pro)-latest$/.test(model)) {
    const lowest = pro ? 'low' : 'minimal';
    const thinkingLevel = level === 'off' ? lowest : pro && level === 'medium' ? 'high' : level;
    return {
      providerOptions: { google: { thinkingConfig: { thinkingLevel } } },
      allowance: ALLOWANCE[thinkingLevel],
      summary: `thinkingLevel ${thinkingLevel}`,
    };
  }
  return { providerOptions: {}, allowance: 0, summary: 'no thinking (model without it)' };
}

/**
 * OpenAI reasoning models (o-series, GPT-5 and later except the GPT-5 chat model) reason before answering, and the
 * reasoning counts against max_completion_tokens. The lowest effort differs: "none" (GPT-5.1 to 5.x, GPT-6 Sol and
 * Luna), "minimal" (GPT-5), "low" (o-series, GPT-6 Astra and GPT-6.1). Other models (and OpenAI-compatible
 * servers' models) get no reasoning option.
 */
function openai(model: string, level: ThinkingLevel): ThinkingPlan {
  const gpt = /^gpt-(\d+)(?:\.(\d+))?(?:-(\w+))?/.exec(model);
  const major = gpt ? Number(gpt[1]) : 0;
  const minor = gpt?.[2] === undefined ? null : Number(gpt[2]);
  const oSeries = /^o\d+(-|$)/.test(model);
  const reasoning = oSeries || (major >= 5 && !(minor === null && gpt?.[3]?.startsWith('chat')));
  if (!reasoning) return { providerOptions: {}, allowance: 0, summary: 'no reasoning (model without it)' };
  let lowest: 'none' | 'minimal' | 'low' = 'low';
  if (major === 5 && minor === null) lowest = 'minimal';
  else if ((major === 5 && minor !== null) || model === 'gpt-6-sol' || model === 'gpt-6-luna') lowest = 'none';
  const reasoningEffort = level === 'off' ? lowest : level;
  return { providerOptions: { openai: { reasoningEffort } }, allowance: ALLOWANCE[reasoningEffort], summary: `reasoning ${reasoningEffort}` };
}

/**
 * Anthropic models think only when asked, except the 5.5 family and Fable, which use adaptive thinking with an
 * effort and (Opus 5.5, Sonnet 5.5, Fable) cannot turn it off: there the lowest effort applies. Budget thinking
 * adds its budget to max_tokens in the SDK; adaptive thinking does not, hence the allowance.
 */
function anthropic(model: string, level: ThinkingLevel): ThinkingPlan {
  const adaptive = /claude-(haiku|sonnet|opus)-5-5|claude-fable-5/.test(model);
  const alwaysOn = /claude-(sonnet|opus)-5-5|claude-fable-5/.test(model);
  if (level === 'off') {
    if (!alwaysOn) return { providerOptions: { anthropic: { thinking: { type: 'disabled' } } }, allowance: 0, summary: 'thinking disabled' };
    return { providerOptions: { anthropic: { effort: 'low' } }, allowance: ALLOWANCE.low, summary: 'adaptive (cannot be turned off), effort low' };
  }
  if (adaptive) {
    return {
      providerOptions: { anthropic: { thinking: { type: 'adaptive' }, effort: level } },
      allowance: ALLOWANCE[level],
      summary: `adaptive, effort ${level}`,
    };
  }
  const budgetTokens = ALLOWANCE[level];
  return { providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens } } }, allowance: 0, summary: `thinking budget ${budgetTokens}` };
}

export function thinkingPlan(provider: ProviderName, model: string, level: ThinkingLevel): ThinkingPlan {
  if (provider === 'openai') return openai(model, level);
  if (provider === 'anthropic') return anthropic(model, level);
  return gemini(model, level);
}
