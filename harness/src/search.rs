//! What an engine is asked and what it reports, in the harness's own terms.
