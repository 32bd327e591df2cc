"""Backends behind one interface (`QuantumBackend`): Aer and batched torch statevector."""
