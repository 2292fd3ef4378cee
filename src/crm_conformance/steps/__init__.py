"""Layer 4, the steps a suite test calls: expectations, factories, pages, operations."""
