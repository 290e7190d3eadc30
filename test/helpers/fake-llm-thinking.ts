// How much each provider's models think for a request, as their APIs document it, and the 400s they answer for
// thinking settings a model does not take. The fake LLM server spends these tokens before the answer.

/** Thinking tokens a request "needs" at each level (the fakes' stand-in for a real model's appetite). */
export const APPETITE = { none: 0, minimal: 20, low: 300, medium: 900, high: 2500, xhigh: 5000, max: 8000 } as const;
type Effort = keyof typeof APPETITE;

export type Thinking = { ok: true; tokens: number } | { ok: false; status: number; message: string };

const ok = (tokens: number): Thinking => ({ ok: true, tokens });
const bad = (message: string): Thinking => ({ ok: false, status: 400, message });

/**
 * Gemini: 2.5 models think dynamically unless thinkingBudget says otherwise (0 turns it off on Flash and Flash-Lite,
 * Pro needs at least 128; 2.5 Flash-Lite does not think by default); 3.x models take thinkingLevel (Pro: low or high,
 * default high; Flash-Lite defaults to minimal) and cannot turn thinking off. 2.0 models do not think.
 */
export function geminiThinking(model: string, config: { thinkingBudget?: number; thinkingLevel?: string } | undefined): Thinking {
  const pro = /-pro\b/.test(model);
  if (config?.thinkingBudget !== undefined && config.thinkingLevel !== undefined) return bad('You cannot set both thinking_level and thinking_budget.');
  if (/^gemini-2\.5/.test(model)) {
    if (config?.thinkingLevel !== undefined) return bad('Thinking level is not supported for this model.');
    const budget = config?.thinkingBudget;
    if (budget === undefined) return ok(/flash-lite/.test(model) ? 0 : APPETITE.medium);
    if (budget === 0 && pro) return bad('Budget 0 is invalid. This model only works in thinking mode.');
    return ok(budget === -1 ? APPETITE.medium : Math.min(budget, APPETITE.medium));
  }
  if (/^gemini-[3-9]/.test(model)) {
    const levels = pro ? ['low', 'high'] : ['minimal', 'low', 'medium', 'high'];
    const level = config?.thinkingLevel ?? (/flash-lite/.test(model) ? 'minimal' : 'high');
    if (!levels.includes(level)) return bad(`Thinking level ${level.toUpperCase()} is not supported for this model.`);
    if (config?.thinkingBudget !== undefined) return ok(Math.max(APPETITE.minimal, Math.min(config.thinkingBudget, APPETITE.high)));
    return ok(APPETITE[level as Effort]);
  }
  return config ? bad('Thinking is not supported for this model.') : ok(0);
}

/**
 * OpenAI: reasoning models (o-series, GPT-5 and later) reason before answering, count it against
 * max_completion_tokens, refuse max_tokens, and take only some efforts; other models refuse reasoning_effort.
 */
export function openaiThinking(model: string, body: { max_tokens?: number; reasoning_effort?: string }): Thinking {
  const gpt = /^gpt-(\d+)(?:\.(\d+))?(?:-(\w+))?/.exec(model);
  const major = gpt ? Number(gpt[1]) : 0;
  const reasoning = /^o\d/.test(model) || (major >= 5 && !(gpt?.[2] === undefined && gpt?.[3]?.startsWith('chat')));
  if (!reasoning) return body.reasoning_effort ? bad(`Unrecognized request argument supplied: reasoning_effort`) : ok(0);
  if (body.max_tokens !== undefined) {
    return bad("Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.");
  }
  let efforts: Effort[] = ['low', 'medium', 'high'];
  if (major === 5 && gpt?.[2] === undefined) efforts = ['minimal', 'low', 'medium', 'high'];
  else if (major === 5) efforts = ['none', 'low', 'medium', 'high', 'xhigh'];
  else if (model === 'gpt-6-sol' || model === 'gpt-6-luna') efforts = ['none', 'low', 'medium', 'high', 'xhigh', 'max'];
  else if (major >= 6) efforts = ['low', 'medium', 'high', 'xhigh', 'max'];
  const effort = body.reasoning_effort ?? (efforts.includes('none') && major === 5 ? 'none' : 'medium');
  if (!efforts.includes(effort as Effort)) {
    return bad(`Unsupported value: 'reasoning_effort' does not support '${effort}' with this model. Supported values are: ${efforts.join(', ')}.`);
  }
  return ok(APPETITE[effort as Effort]);
}

/**
 * Anthropic: models think only when asked (budget thinking: at least 1,024 tokens and below max_tokens), except
 * Opus 5.5, Sonnet 5.5 and Fable, which always think adaptively at their effort and refuse thinking "disabled".
 */
export function anthropicThinking(
  model: string,
  body: { max_tokens: number; thinking?: { type: string; budget_tokens?: number }; output_config?: { effort?: string } },
): Thinking {
  const alwaysOn = /claude-(sonnet|opus)-5-5|claude-fable-5/.test(model);
  const effort = (body.output_config?.effort ?? 'high') as Effort;
  const type = body.thinking?.type;
  if (type === 'disabled' && alwaysOn) return bad(`thinking cannot be disabled for ${model}`);
  if (type === 'enabled') {
    const budget = body.thinking!.budget_tokens ?? 0;
    if (budget < 1024) return bad('thinking.budget_tokens: Input should be greater than or equal to 1024');
    if (budget >= body.max_tokens) return bad('`max_tokens` must be greater than `thinking.budget_tokens`');
    return ok(Math.min(budget, APPETITE.medium));
  }
  if (type === 'adaptive' || type === 'between_tools' || alwaysOn) return ok(APPETITE[effort] ?? APPETITE.high);
  return ok(0);
}
