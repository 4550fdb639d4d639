"""An organization's gate policy: the floors no community setting may go below, in the form, the service and
the database."""

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


@pytest.mark.parametrize("value", [-0.1, 1.5])
def test_form_refuses_an_ac1_minimum_outside_0_and_1(steward, value):
    form = GatePolicyForm({**VALID, "min_ac1": value}, instance=GatePolicy(organization=steward))
    assert not form.is_valid()
    assert form.errors["min_ac1"] == ["Enter a minimum AC1 between 0 and 1."]


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


@pytest.mark.parametrize("fields", [{"min_rated_items": 29}, {"min_ac1": 1.01}, {"min_ac1": -0.01},
                                    {"min_distinct_speakers": 1}])
def test_database_refuses_values_below_the_floors(steward, fields):
    with pytest.raises(IntegrityError), transaction.atomic():
        GatePolicy.objects.create(organization=steward, **fields)


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
