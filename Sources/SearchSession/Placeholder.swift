// SearchSession
