// Step 1, guardrail 1: the question is checked before anything is retrieved (text, length, prompt injection); a
// refused question is a 400 with the reason.
import { TextHttpError } from '../../../errors.js';
import type { RagService } from '../../service.js';
import type { AskContext } from '../context.js';
import { checkQuestion } from '../guardrails.js';
import type { AskStep } from './step.js';

export class GuardStep implements AskStep {
  readonly name = 'guardrail_input';

  constructor(private readonly rag: Pick<RagService, 'ready'>) {}

  async run(ctx: AskContext): Promise<void> {
    const { question } = ctx.request;
    const verdict = await ctx.time('guardrail_input', () => checkQuestion(question));
    if (!verdict.ok) throw new TextHttpError(400, `Question refused: ${verdict.reason}`, { guardrail: 'input', reason: verdict.reason });
    ctx.original = (question as string).trim();
    ctx.guardrails.input = { passed: true };
    await this.rag.ready();
    ctx.emit('guardrail_input', { passed: true });
  }
}
