package linematch

// maxPrefilterLiterals caps the alternatives a prefilter scans for
// separately; with more, the scan costs more than the regex it saves.
const maxPrefilterLiterals = 8
