"""An organization's gate policy: the floors no community setting may go below, in the form, the service and
the database; each threshold keeps its meaning (a pass says most outputs are usable, agreement is more than chance)."""

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from review import services
from review.forms import GatePolicyForm
from review.models import GatePolicy

VALID = {"min_usable_lower_bound": 0.7, "min_tier_usable_share": 0.5, "max_reject_share": 0.1, "min_ac1": 0.6,
         "min_rated_items": 30, "min_distinct_speakers": 3, "require_complete_coverage": "on"}


def test_form_refuses_fewer_than_30_rated_items(steward):
    form = GatePolicyForm({**VALID, "min_rated_items": 29}, instance=GatePolicy(organization=steward))
    assert not form.is_valid()
    assert form.errors["min_rated_items"] == ["A policy needs at least 30 rated items."]
    assert GatePolicyForm(VALID, instance=GatePolicy(organization=steward)).is_valid()


MEANINGLESS = [
    ("min_usable_lower_bound", 0.49, "Enter a threshold between 0.50 and 0.95: below half, a pass would not say that "
                                     "most outputs are usable, and a campaign's lower bound can hardly ever reach "
                                     "more."),
    ("min_usable_lower_bound", 0.96, None),
    ("min_tier_usable_share", 0.2, "Enter a tier floor between 0.25 and 0.95: below it, a tier with three outputs "
                                   "in four unusable would meet the floor."),
    ("max_reject_share", 0.6, "Enter a highest reject share between 0.00 and 0.50: a method whose outputs are mostly "
                              "rejects cannot pass."),
    ("min_ac1", 0.3, "Enter a lowest AC1 between 0.40 and 1.00: below it, speakers who agree little more than chance "
                     "would count as agreeing."),
    ("min_ac1", 1.5, None),
]


@pytest.mark.parametrize("field, value, message", MEANINGLESS)
def test_form_refuses_a_threshold_that_loses_its_meaning_naming_the_field(steward, field, value, message):
    form = GatePolicyForm({**VALID, field: value}, instance=GatePolicy(organization=steward))
    assert not form.is_valid()
    assert list(form.errors) == [field]
    if message:
        assert form.errors[field] == [message]


@pytest.mark.parametrize("field, value, message", MEANINGLESS)
def test_service_and_database_refuse_a_threshold_that_loses_its_meaning(steward, governance_user, field, value,
                                                                        message):
    with pytest.raises(services.ReviewError) as refused:
        services.set_gate_policy(actor=governance_user, organization=steward, values={field: value})
    assert refused.value.field == field
    assert not GatePolicy.objects.filter(organization=steward).exists()
    with pytest.raises(IntegrityError), transaction.atomic():
        GatePolicy.objects.create(organization=steward, **{field: value})


def test_all_thresholds_at_zero_are_refused_field_by_field(steward):
    zeros = {**VALID, "min_usable_lower_bound": 0, "min_tier_usable_share": 0, "max_reject_share": 0, "min_ac1": 0}
    form = GatePolicyForm(zeros, instance=GatePolicy(organization=steward))
    assert not form.is_valid()
    assert set(form.errors) == {"min_usable_lower_bound", "min_tier_usable_share", "min_ac1"}
    # A reject share of at most 0 is strict, not meaningless: no item may have a median rating of reject.
    assert GatePolicyForm({**VALID, "max_reject_share": 0}, instance=GatePolicy(organization=steward)).is_valid()


def test_form_and_service_refuse_fewer_than_2_distinct_speakers(steward, governance_user):
    form = GatePolicyForm({**VALID, "min_distinct_speakers": 1}, instance=GatePolicy(organization=steward))
    assert not form.is_valid()
    assert form.errors["min_distinct_speakers"] == ["A policy needs ratings from at least 2 distinct speakers."]
    with pytest.raises(services.ReviewError):
        services.set_gate_policy(actor=governance_user, organization=steward, values={"min_distinct_speakers": 1})


def test_service_refuses_fewer_than_30_rated_items(steward, governance_user):
    with pytest.raises(services.ReviewError) as refused:
        services.set_gate_policy(actor=governance_user, organization=steward, values={"min_rated_items": 10})
    assert refused.value.field == "min_rated_items"
    assert not GatePolicy.objects.filter(organization=steward).exists()
    policy = services.set_gate_policy(actor=governance_user, organization=steward,
                                      values={"min_rated_items": 40, "min_ac1": 0.7})
    assert (policy.min_rated_items, policy.min_ac1) == (40, 0.7)


@pytest.mark.parametrize("fields", [{"min_rated_items": 29}, {"min_ac1": 1.01}, {"min_ac1": 0.39},
                                    {"min_distinct_speakers": 1}])
def test_database_refuses_values_below_the_floors(steward, fields):
    with pytest.raises(IntegrityError), transaction.atomic():
        GatePolicy.objects.create(organization=steward, **fields)


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_migration_raises_stored_minimums_to_30(steward):
    executor = MigrationExecutor(connection)
    executor.migrate([("review", "0005_rating_examples")])
    executor.loader.build_graph()
    old = executor.loader.project_state([("review", "0005_rating_examples")]).apps.get_model("review", "GatePolicy")
    old.objects.create(organization_id=steward.pk, min_rated_items=12)
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert GatePolicy.objects.get(organization=steward).min_rated_items == 30


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_migration_brings_stored_thresholds_into_their_ranges(steward):
    executor = MigrationExecutor(connection)
    executor.migrate([("review", "0013_drop_fk_indexes_led_by_composites_partial_withdrawal")])
    executor.loader.build_graph()
    old = executor.loader.project_state([("review", "0013_drop_fk_indexes_led_by_composites_partial_withdrawal")]
                                        ).apps.get_model("review", "GatePolicy")
    old.objects.create(organization_id=steward.pk, min_usable_lower_bound=0.0, min_tier_usable_share=0.0,
                       max_reject_share=1.0, min_ac1=0.0)
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    policy = GatePolicy.objects.get(organization=steward)
    assert (policy.min_usable_lower_bound, policy.min_tier_usable_share, policy.max_reject_share,
            policy.min_ac1) == (0.5, 0.25, 0.5, 0.4)
