//! (filled by the hostile-tenant work)
