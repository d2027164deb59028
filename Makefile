# aicluster.slurm: the lab cluster and the tests, from a fresh clone.
SHELL := /bin/bash
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
S ?= startup
export ANSIBLE_COLLECTIONS_PATH := $(CURDIR)/.cache/collections
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg
export PATH := $(BIN):$(PATH)

.PHONY: help lab lab-shell lab-destroy test check figures lint unit sanity scenario bench bench-topology build docker image collection clean topology-it badinput secrets promtool schema variables-doc

help:
	@echo "make lab            build the lab (1 controller, 2 compute nodes) and run site.yml on it"
	@echo "make lab-shell      shell on the lab controller"
	@echo "make lab-destroy    remove the lab containers and network"
	@echo "make test           everything below in two lanes (tests/harness.py), then the figures and the timing table"
	@echo "make check          the fast loop: lint, unit tests, sanity, build, promtool, topology on slurmctld"
	@echo "make scenario S=x   one molecule scenario end to end"
	@echo "make bench          converge, topology and scheduling benchmarks (bench/README.md)"
	@echo "make bench-topology topology stages at 1k, 16k, 64k nodes, then side by side with NVIDIA topograph (Go)"
	@echo "make topology-it    render topology.conf from real fabric captures and start slurmctld on each"
	@echo "make promtool       promtool check rules + test rules on the alert rules (tests/promtool)"
	@echo "make badinput       bad inputs (tests/badinput) through site.yml on the live lab: all rejected, no host changed, cluster up, rollback"
	@echo "make schema         regenerate the Slurm configuration schema from the packages' man pages (tools/)"
	@echo "make variables-doc  regenerate docs/variables.md from every role's meta/argument_specs.yml (tools/variables_doc.py)"
	@echo "make secrets        first converge of a fresh lab at -vvv (tests/secrets): no secret in the output, secret files' owner and mode"

$(VENV)/.stamp: requirements.txt requirements-dev.txt
	python3 -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

collection:
	@mkdir -p .cache/collections/ansible_collections/aicluster
	@test -L .cache/collections/ansible_collections/aicluster/slurm || ln -sfn ../../../.. .cache/collections/ansible_collections/aicluster/slurm

docker:
	bash lab/docker.sh

# LAB_RELEASE: the Debian release of the lab and scenario containers, trixie
# (Slurm 24.11) or forky (Debian testing, Slurm 26.05).
LAB_RELEASE ?= trixie
export LAB_RELEASE
# badinput and secrets: Ansible's own linear strategy and docker connection
# (their whole site.yml runs after the first converge over Mitogen), with the
# collection's filters imported before the workers fork
# (tests/strategy_plugins/warm_linear.py; tests/README.md, Transport).
WARM := ANSIBLE_STRATEGY_PLUGINS=$(CURDIR)/tests/strategy_plugins ANSIBLE_STRATEGY=warm_linear

image: docker
	bash lab/image.sh $(LAB_RELEASE)

lab: $(VENV)/.stamp collection image
	ansible-playbook -i inventories/lab lab/create.yml
	ansible-playbook -i inventories/lab site.yml
	bash lab/demo.sh

lab-shell:
	docker exec -it lab-ctl bash

lab-destroy: $(VENV)/.stamp collection
	ansible-playbook -i inventories/lab lab/destroy.yml

# Every step (lint, unit, sanity, build, promtool, topology-it, badinput,
# secrets, the molecule scenarios upgrade, startup (on trixie and on forky,
# with monitoring and day 2), midsize, storage, large and gpu) in AICLUSTER_TEST_JOBS lanes (2), logs in build/logs/, then
# figures and the timing table (build/figures/timings.json; tests/README.md).
test: $(VENV)/.stamp collection image
	python tests/harness.py

check: $(VENV)/.stamp collection image
	python tests/harness.py --only lint,unit,sanity,build,promtool,topology-it

figures: $(VENV)/.stamp
	python tests/figures.py

lint: $(VENV)/.stamp collection
	yamllint .
	ansible-lint
	ruff check .
	ruff format --check .

unit: $(VENV)/.stamp collection
	pytest tests/unit

sanity: $(VENV)/.stamp
	bash tests/sanity.sh

scenario: $(VENV)/.stamp collection image
	molecule test -s $(S)

bench: $(VENV)/.stamp collection image
	bash bench/converge.sh
	bash bench/add_node.sh
	python bench/topology.py
	bash bench/scheduling.sh 128

# Parse, build, validate, render at 1k, 16k and 64k nodes (time, peak RSS),
# then the same fabric through NVIDIA topograph (bench/topology_peers, Go
# toolchain; skipped with a message when the module cannot be built).
bench-topology: $(VENV)/.stamp collection
	python bench/topology.py
	python bench/topology_peers.py

# Real fabric captures -> topology.conf -> a real slurmctld (skipped without ../shared/fabrics).
topology-it: $(VENV)/.stamp collection image
	python tests/integration/topology_slurmctld.py

# The bad-input catalogue and 30 schema-generated invalid configurations,
# each through site.yml against the converged lab (with a job running) and a
# real Debian 12 container; preflight must stop each one, no host may change,
# slurmctld must keep answering; then a configuration that stops slurmctld
# must be rolled back (tests/badinput/run.py --live).
badinput: $(VENV)/.stamp collection image
	bash lab/image.sh bookworm minimal
	ansible-playbook -i inventories/lab lab/create.yml
	$(WARM) python tests/badinput/run.py --live --json build/figures/badinput.json

# A first converge of fresh lab containers (with accounting
# and MinIO on the controller) at -vvv with random secrets: none of them in
# the output, and the files holding them with the documented owner and mode on
# every host. The lab is removed afterwards (tests/secrets/run.py).
secrets: $(VENV)/.stamp collection image
	$(WARM) python tests/secrets/run.py

# The alert rules, rendered with the prometheus role's defaults, through
# Debian trixie's promtool (fetched once in the base image: tests/promtool/run.sh).
promtool: $(VENV)/.stamp collection image
	bash tests/promtool/run.sh

build: $(VENV)/.stamp
	bash tests/build.sh

# Regenerate the configuration schema, one entry per Slurm series, from the man
# pages of Debian's Slurm packages (trixie: 24.11, forky: 26.05;
# tools/slurm_schema.sh, tools/gen_slurm_schema.py); commit the result.
schema: $(VENV)/.stamp
	bash tools/slurm_schema.sh

# The variable reference from every role's argument specs; commit the result
# (tests/unit/test_variables_doc.py fails when it is not current).
variables-doc: $(VENV)/.stamp
	python tools/variables_doc.py

clean: lab-destroy
	rm -rf .cache $(VENV)
