import { describe, expect, it } from 'vitest';
import { loadConfig, modelEndpoints } from '../src/index.js';

describe('the endpoints of the methods with models', () => {
  it('embeddings and rerank use the chat endpoint and key unless they have their own', () => {
    const shared = loadConfig(
      { OPENAI_BASE_URL: 'http://chat/v1', OPENAI_API_KEY: 'chat-key', ASSAY_DATA_DIR: '/d' },
      '/',
    );
    expect(modelEndpoints(shared)).toEqual({
      chat: { baseURL: 'http://chat/v1', apiKey: 'chat-key' },
      embeddings: { baseURL: 'http://chat/v1', apiKey: 'chat-key' },
      rerank: { baseURL: 'http://chat/v1', apiKey: 'chat-key' },
    });
  });

  it('an endpoint of its own gets its own key, never the chat key', () => {
    const config = loadConfig(
      {
        OPENAI_BASE_URL: 'http://chat/v1',
        OPENAI_API_KEY: 'chat-key',
        ASSAY_EMBEDDING_BASE_URL: 'http://tei/v1',
        ASSAY_EMBEDDING_API_KEY: 'tei-key',
        ASSAY_RERANK_BASE_URL: 'http://rerank/v1',
        ASSAY_DATA_DIR: '/d',
      },
      '/',
    );
    expect(modelEndpoints(config)).toEqual({
      chat: { baseURL: 'http://chat/v1', apiKey: 'chat-key' },
      embeddings: { baseURL: 'http://tei/v1', apiKey: 'tei-key' },
      rerank: { baseURL: 'http://rerank/v1' },
    });
    // The command line's own URLs come first.
    expect(
      modelEndpoints(config, { baseUrl: 'http://cli/v1', rerankBaseUrl: 'http://r2/v1' }),
    ).toMatchObject({ chat: { baseURL: 'http://cli/v1' }, rerank: { baseURL: 'http://r2/v1' } });
    expect(() => loadConfig({ ASSAY_RERANK_BASE_URL: 'ftp://x' }, '/')).toThrow(
      'ASSAY_RERANK_BASE_URL must be an http(s) URL',
    );
  });
});
