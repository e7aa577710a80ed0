package provider

// bytesPerToken is the size of a token in EstimateTokens: four
// characters of English text a token is the usual rule of thumb for both
// providers' tokenizers, and counting bytes rather than characters
// overcounts text that is not ASCII, so the estimate errs on the side of
// a larger prompt.
const bytesPerToken = 4

// EstimateTokens is the number of tokens s is likely to cost, without
// asking the provider (whose count is a network call).
func EstimateTokens(s string) int64 { return int64((len(s) + bytesPerToken - 1) / bytesPerToken) }
