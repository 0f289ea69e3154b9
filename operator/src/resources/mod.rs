//! Pure builders of every object a TrussiumRuntime owns.
