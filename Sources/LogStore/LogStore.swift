// The log store arrives with its own issue; this target keeps the product list stable.
