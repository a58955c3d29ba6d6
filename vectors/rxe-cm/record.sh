#!/bin/bash
# Records the CM captures of this directory in one rxe-lab session (as root):
#   flock /tmp/rxe-lab.lock vectors/rxe-cm/record.sh [DIR]
# The server logs land beside the pcaps; delete them before committing.
R=${RXE_LAB:-$(dirname "$(readlink -f "$0")")/../../../shared/rxe-lab/rxe-lab}
O=${1:-$(dirname "$(readlink -f "$0")")}
set -x
trap '$R down' EXIT
timeout 120 $R up --vms 2 || exit 1
# 1. REQ to a port nobody listens on: the server's ib_cm answers with a REJ
timeout 60 $R capture $O/rping_reject.pcap -- bash -c "$R exec --vm 2 --timeout 30 -- 'rping -c -a 10.77.0.11 -p 7199 -C 1 -v'; true"
# 2. udaddy: SIDR_REQ / SIDR_REP, then UD sends
timeout 90 $R capture $O/udaddy.pcap -- bash -c "
  $R exec --vm 1 -n --timeout 40 -- 'udaddy -b 10.77.0.11 -C 1' > $O/udaddy-server.log 2>&1 &
  sleep 3
  $R exec --vm 2 --timeout 30 -- 'udaddy -s 10.77.0.11 -C 1' > $O/udaddy-client.log 2>&1
  wait"
# 3. ucmatose with 2 connections: 2 x REQ/REP/RTU, sends, DREQ/DREP
timeout 120 $R capture $O/ucmatose.pcap -- bash -c "
  $R exec --vm 1 -n --timeout 60 -- 'ucmatose -b 10.77.0.11 -c 2 -C 1' > $O/ucmatose-server.log 2>&1 &
  sleep 3
  $R exec --vm 2 --timeout 50 -- 'ucmatose -s 10.77.0.11 -c 2 -C 1' > $O/ucmatose-client.log 2>&1
  wait"
ls -la $O
