import type { Dispatcher } from 'undici';
import { postToProvider, ProviderError } from '../http/provider-call.js';
import { normalize, type EmbeddingProvider } from './embedding-provider.js';

export interface OpenAiEmbeddingOptions {
  baseUrl: string;
  apiKey?: string;
  model: string;
  timeoutMs: number;
  retries: number;
  /** The outbound agent (service-kit's createGuardedAgent) the calls go through. */
  dispatcher: Dispatcher;
}

/** Inputs per request; OpenAI accepts up to 2,048, local servers often far fewer. */
const BATCH = 64;

/** An OpenAI-compatible `POST /embeddings` (OpenAI, vLLM, Ollama, llama.cpp, text-embeddings-inference). */
export class OpenAiEmbeddingProvider implements EmbeddingProvider {
  readonly id: string;

  constructor(private readonly options: OpenAiEmbeddingOptions) {
    this.id = `openai:${options.model}`;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += BATCH) out.push(...(await this.batch(texts.slice(i, i + BATCH))));
    return out;
  }

  private async batch(input: string[]): Promise<Float32Array[]> {
    const url = `${this.options.baseUrl.replace(/\/+$/, '')}/embeddings`;
    const response = await postToProvider(
      url,
      { model: this.options.model, input },
      { apiKey: this.options.apiKey, timeoutMs: this.options.timeoutMs, retries: this.options.retries },
      this.options.dispatcher,
    );
    const body = (await response.body.json()) as { data?: Array<{ index?: number; embedding?: number[] }> };
    const data = body.data ?? [];
    if (data.length !== input.length)
      throw new ProviderError(`embeddings: expected ${input.length} vectors, got ${data.length}`);
    const ordered = [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    return ordered.map((d) => {
      if (!Array.isArray(d.embedding)) throw new ProviderError('embeddings: answer without an embedding array');
      return normalize(Float32Array.from(d.embedding));
    });
  }
}
