// simscale's output: a summary on stdout, the prediction CSV and the policy CSV.
#pragma once

#include "options.hpp"
#include "session.hpp"

namespace simscale
{

void print_summary(const Options &o, const Prediction &p);
// Appends op,dataset,ranks,ranks_per_node,link,bytes,mode,predicted_us rows (header first in a
// new file): best-baseline, zip, zip-raw, and with --detail every baseline simulated.
void append_prediction_csv(const Options &o, const Prediction &p);
// Appends what the policy decided and the speeds it decided with.
void append_policy_csv(const Options &o, const Prediction &p);

} // namespace simscale
