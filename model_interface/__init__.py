"""The model interface: the Responses API in front of scripted, OpenAI-compatible, vLLM and
local backends, with the token data trainers need."""
