"""One completion and one stream through the official `openai` Python package.

Run by openai.e2e.spec.ts as `python openai_client.py BASE_URL API_KEY MODEL`; prints one JSON
object with what the package returned, for the spec to assert on.
"""

import json
import sys

from openai import OpenAI


def main() -> None:
    base_url, api_key, model = sys.argv[1:4]
    client = OpenAI(base_url=base_url, api_key=api_key, max_retries=0)
    completion = client.chat.completions.create(
        model=model, messages=[{"role": "user", "content": "What is the office wifi password?"}]
    )
    pieces = []
    usage = None
    stream = client.chat.completions.create(
        model=model,
        messages=[{"role": "user", "content": "What is the office wifi password?"}],
        stream=True,
        stream_options={"include_usage": True},
    )
    for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            pieces.append(chunk.choices[0].delta.content)
        if chunk.usage:
            usage = chunk.usage.total_tokens
    print(
        json.dumps(
            {
                "content": completion.choices[0].message.content,
                "finish_reason": completion.choices[0].finish_reason,
                "total_tokens": completion.usage.total_tokens,
                "streamed": "".join(pieces),
                "stream_total_tokens": usage,
            }
        )
    )


if __name__ == "__main__":
    main()
